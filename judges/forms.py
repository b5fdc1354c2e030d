"""The judge panel's start form: name, family, F1 threshold, batch size."""

from django import forms

from judges.families import FAMILIES
from judges.services import MAX_BATCH_SIZE


class JudgeRunStartForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="The same name always means the same configuration.")
    family = forms.ChoiceField(choices=[(name, name) for name in sorted(FAMILIES)])
    threshold = forms.FloatField(
        required=False, min_value=0.0, max_value=1.0, help_text="F1 only: label yes at or above (default 0.5)."
    )
    batch_size = forms.IntegerField(min_value=1, max_value=MAX_BATCH_SIZE, initial=64)

    def config(self) -> dict:
        data = self.cleaned_data
        if data["family"] == "f1" and data.get("threshold") is not None:
            return {"threshold": data["threshold"]}
        return {}
