"""Staff register model endpoints here (or with `manage.py model_endpoint`). A key is written, never shown."""

from django import forms
from django.contrib import admin

from judges.crypto import secret_encrypt
from judges.endpoints import check_base_url, check_env_name
from judges.errors import JudgeConfigError
from judges.models import KeySource, ModelEndpoint


class ModelEndpointForm(forms.ModelForm):
    key = forms.CharField(
        required=False, strip=True, widget=forms.PasswordInput(render_value=False),
        help_text="Key source 'stored': type the key to store it (encrypted); leave empty to keep the stored one.",
    )
    model_ids = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One model id per line (the server's /v1/models ids); empty: any model the server has.",
    )

    class Meta:
        model = ModelEndpoint
        exclude = ["key_encrypted"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["model_ids"] = "\n".join(self.instance.model_ids)

    def clean_model_ids(self) -> list[str]:
        return [line.strip() for line in (self.cleaned_data.get("model_ids") or "").splitlines() if line.strip()]

    def clean_base_url(self) -> str:
        try:
            return check_base_url(self.cleaned_data.get("base_url") or "")
        except JudgeConfigError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean(self):
        data = super().clean()
        source, key, env = data.get("key_source"), data.get("key"), (data.get("key_env") or "").strip()
        if source == KeySource.ENV:
            try:
                data["key_env"] = check_env_name(env)
            except JudgeConfigError as exc:
                self.add_error("key_env", str(exc))
        else:
            data["key_env"] = ""
        if source == KeySource.STORED and not key and not self.instance.key_encrypted:
            self.add_error("key", "type the key to store")
        if source != KeySource.STORED and key:
            self.add_error("key", "a key is stored only with key source 'stored'")
        return data

    def save(self, commit=True):
        endpoint = super().save(commit=False)
        endpoint.model_ids = self.cleaned_data["model_ids"]
        endpoint.key_env = self.cleaned_data.get("key_env", "")
        if endpoint.key_source == KeySource.STORED:
            if self.cleaned_data.get("key"):
                endpoint.key_encrypted = secret_encrypt(self.cleaned_data["key"])
        else:
            endpoint.key_encrypted = ""
        if commit:
            endpoint.save()
            self.save_m2m()
        return endpoint


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(admin.ModelAdmin):
    form = ModelEndpointForm
    list_display = ["name", "base_url", "models_shown", "key_source", "key_stored", "max_concurrency", "enabled",
                    "all_campaigns", "show_bodies"]
    list_filter = ["enabled", "key_source", "all_campaigns", "show_bodies"]
    search_fields = ["name", "base_url"]
    filter_horizontal = ["campaigns", "groups"]
    fieldsets = [
        (None, {"fields": ["name", "base_url", "model_ids", "enabled", "notes"]}),
        ("Key", {"fields": ["key_source", "key_env", "key"]}),
        ("Limits and prices", {"fields": ["max_concurrency", "price_per_1k_prompt_tokens",
                                          "price_per_1k_completion_tokens"]}),
        ("Who may use it", {"fields": ["all_campaigns", "campaigns", "groups"]}),
        ("Debugging", {"fields": ["show_bodies"]}),
    ]

    @admin.display(description="models")
    def models_shown(self, endpoint: ModelEndpoint) -> str:
        return ", ".join(endpoint.model_ids) or "any"

    @admin.display(boolean=True, description="key stored")
    def key_stored(self, endpoint: ModelEndpoint) -> bool:
        return bool(endpoint.key_encrypted)
