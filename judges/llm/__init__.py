"""The LLM judge's parts: prompt building, verdict parsing and voting, and the generation backends.

`backend.py` is the contract every backend keeps (transformers in `hf_backend.py`, OpenAI-compatible
HTTP in `http_backend.py`); the `llm` judge family (judges/families/llm.py) drives them. The `vlm` family
(judges/families/vlm.py) drives the HTTP one too, and `hf_vision_backend.py` for image-text-to-text models.
"""
