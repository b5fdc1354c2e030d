"""The judge panel's start form: name, family, F1 threshold, model endpoint, a JSON configuration, batch size."""

import json

from django import forms

from judges.families import FAMILIES, families_for
from judges.services import MAX_BATCH_SIZE


class JudgeRunStartForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="The same name always means the same configuration.")
    family = forms.ChoiceField(choices=[(name, name) for name in sorted(FAMILIES)])
    threshold = forms.FloatField(
        required=False, min_value=0.0, max_value=1.0, help_text="F1 only: label yes at or above (default 0.5)."
    )
    endpoint = forms.ChoiceField(
        required=False, label="Model endpoint",
        help_text="llm and vlm: the OpenAI-compatible server to ask, among those staff registered for this campaign.",
    )
    config_json = forms.CharField(
        required=False, label="Configuration",
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": '{"model": "/models/monot5-base", "device": "cpu"}'}),
        help_text="Optional JSON object of the family's options; empty means its defaults.",
    )
    batch_size = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_BATCH_SIZE, label="Items per task",
        help_text="Items per Celery task; empty means the family's default (64; 256 for the transformer families, "
                  "whose forward passes sort a task's items by length).",
    )
    sample = forms.IntegerField(
        required=False, min_value=1, label="Sample",
        help_text="Optional: judge only this many items, the same ones for every judge (a pilot, an ablation).",
    )

    def __init__(self, *args, task_type: str | None = None, endpoints=(), **kwargs):
        super().__init__(*args, **kwargs)
        if task_type is not None:  # only the families that can judge this campaign's task type
            self.fields["family"].choices = [(name, name) for name in families_for(task_type)]
        self.fields["endpoint"].choices = [("", "none (a local model)")] + [
            (e.name, f"{e.name} ({', '.join(e.model_ids) or 'any model'})") for e in endpoints
        ]

    def clean(self):
        data = super().clean()
        family = data.get("family")
        if data.get("endpoint") and family and not getattr(FAMILIES[family], "uses_endpoint", False):
            self.add_error("endpoint", f"{family} judges run on the worker; a model endpoint is for llm and vlm")
        return data

    def clean_config_json(self) -> dict:
        text = (self.cleaned_data.get("config_json") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
        if not isinstance(value, dict):
            raise forms.ValidationError("the configuration must be a JSON object, e.g. {\"device\": \"cpu\"}")
        return value

    def config(self) -> dict:
        """The family's options: the JSON object, with the threshold field filled in for F1."""
        data = self.cleaned_data
        config = dict(data.get("config_json") or {})
        if data["family"] == "f1" and data.get("threshold") is not None:
            config["threshold"] = data["threshold"]
        if data.get("endpoint"):
            config.setdefault("backend", "openai")
            config["endpoint"] = data["endpoint"]
        return config
