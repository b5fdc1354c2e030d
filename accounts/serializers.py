from rest_framework import serializers

from accounts.models import ApiToken, Preferences


class ApiTokenSerializer(serializers.ModelSerializer):
    live = serializers.BooleanField(source="is_live", read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "live", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    token = serializers.CharField(help_text="The key, shown this once: only its hash is kept.")

    class Meta(ApiTokenSerializer.Meta):
        fields = ["token", *ApiTokenSerializer.Meta.fields]


class ApiTokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100, required=False, default="api")


class ObtainTokenSerializer(serializers.Serializer):
    username = serializers.CharField()
    password = serializers.CharField(style={"input_type": "password"}, trim_whitespace=False)
    name = serializers.CharField(max_length=100, required=False, default="api",
                                 help_text="What to call the new token on your profile page.")


class PreferencesSerializer(serializers.Serializer):
    shortcuts = serializers.ChoiceField(
        choices=Preferences.Shortcuts.choices,
        help_text="How character keys work the annotation pages: keys (a single key), alt (with Alt held), off.",
    )
