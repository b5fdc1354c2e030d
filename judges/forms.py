"""The judge panel's start form: name, family, threshold, model endpoint, a JSON configuration, batch size.

The threshold and the model endpoint are there only when a family that can judge the campaign's task type takes them
(an option `threshold`; `uses_endpoint`), and say which families those are."""

import json

from django import forms

from judges.development import HELD_OUT_DEFAULT, HELD_OUT_RANGE, STRATA
from judges.families import FAMILIES, families_for, family_options
from judges.probes import PER_KIND_DEFAULT, PER_KIND_MOST
from judges.services import MAX_BATCH_SIZE


class JudgeRunStartForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="The same name always means the same configuration.")
    family = forms.ChoiceField(choices=[(name, name) for name in sorted(FAMILIES)])
    threshold = forms.FloatField(required=False, min_value=0.0, max_value=1.0)
    endpoint = forms.ChoiceField(required=False, label="Model endpoint")
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
        # Only the families that can judge this campaign's task type, and only the fields some of them take.
        self.task_type = task_type
        self.families = families_for(task_type) if task_type is not None else sorted(FAMILIES)
        self.fields["family"].choices = [(name, name) for name in self.families]
        thresholds = {name: FAMILIES[name].options["threshold"] for name in self.families
                      if "threshold" in FAMILIES[name].options}
        if thresholds:
            self.fields["threshold"].label = f"Threshold ({', '.join(thresholds)})"
            self.fields["threshold"].help_text = " ".join(
                f"{name}: {option.help.rstrip('.')} (default {option.default})." for name, option in thresholds.items())
        else:
            del self.fields["threshold"]
        takers = [name for name in self.families if FAMILIES[name].uses_endpoint]
        if not takers:
            del self.fields["endpoint"]
            return
        self.fields["endpoint"].help_text = (f"{' and '.join(takers)}: the OpenAI-compatible server to ask, among "
                                             "those staff registered for this campaign.")
        self.fields["endpoint"].choices = [("", "none (a local model)")] + [
            (e.name, f"{e.name} ({', '.join(e.model_ids) or 'any model'})") for e in endpoints
        ]

    @property
    def family_descriptions(self) -> list[tuple[str, str, list[str]]]:
        """(name, what it does, its configuration keys) of each family the form offers, in the family's own words."""
        return [(name, FAMILIES[name].description,
                 sorted(family_options(name, self.task_type) if self.task_type else FAMILIES[name].options))
                for name in self.families]

    def clean(self):
        data = super().clean()
        family = data.get("family")
        if data.get("endpoint") and family and not FAMILIES[family].uses_endpoint:
            takers = ", ".join(name for name in self.families if FAMILIES[name].uses_endpoint)
            self.add_error("endpoint", f"{family} judges run on the worker; a model endpoint is for {takers}")
        return data

    def clean_config_json(self) -> dict:
        text = (self.cleaned_data.get("config_json") or "").strip()
        if not text:
            return {}
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
        except RecursionError:
            raise forms.ValidationError("not a judge configuration: its lists and objects nest too deeply") from None
        if not isinstance(value, dict):
            raise forms.ValidationError("the configuration must be a JSON object, e.g. {\"device\": \"cpu\"}")
        return value

    def config(self) -> dict:
        """The family's options: the JSON object, with the threshold field filled in for a family that takes one."""
        data = self.cleaned_data
        config = dict(data.get("config_json") or {})
        if "threshold" in FAMILIES[data["family"]].options and data.get("threshold") is not None:
            config["threshold"] = data["threshold"]
        if data.get("endpoint"):
            config.setdefault("backend", "openai")
            config["endpoint"] = data["endpoint"]
        return config


SPLIT_UNCONFIRMED = ('the split is made once and cannot be undone: every judge is read on one part from then on; '
                     'confirm it (the API: "confirm": true) to make it')


class DevelopmentSplitForm(forms.Form):
    """The judge development page's form that splits the campaign's items (judges.development.split_make)."""

    held_out = forms.FloatField(
        initial=HELD_OUT_DEFAULT, min_value=HELD_OUT_RANGE[0], max_value=HELD_OUT_RANGE[1], label="Held-out share",
        help_text="The share of each stratum's items kept for the final figure.")
    seed = forms.IntegerField(initial=0, min_value=0, max_value=2**31 - 1,
                              help_text="The draw's seed: the same seed on the same items gives the same split.")
    stratify = forms.ChoiceField(choices=[(key, f"{key}: {words}") for key, words in STRATA.items()], initial="topic",
                                 label="Stratify by")
    # The split is made once and cannot be undone (judges.development): whoever makes it says so, the page after a
    # confirmation dialog (a hidden field the dialog's acceptance submits), the API with "confirm": true.
    confirm = forms.BooleanField(required=True, widget=forms.HiddenInput, label="",
                                 error_messages={"required": SPLIT_UNCONFIRMED})


class ProbesForm(forms.Form):
    """The probes page's form that makes robustness probes (tasktypes.probes.probes_make): KINDS are the (kind, title)
    pairs the campaign's task type offers."""

    kinds = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple, label="Probes",
                                      error_messages={"required": "Choose at least one kind of probe."})
    per_kind = forms.IntegerField(initial=PER_KIND_DEFAULT, min_value=1, max_value=PER_KIND_MOST,
                                  label="Probes per kind",
                                  help_text="At most this many items of each kind are copied, drawn at random.")
    seed = forms.IntegerField(initial=0, min_value=0, max_value=2**31 - 1,
                              help_text="The draw's seed: the same seed on the same items draws the same items.")

    def __init__(self, *args, kinds: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["kinds"].choices = kinds
        self.fields["kinds"].initial = [kind for kind, _ in kinds]
