"""Word-level tokenizers for the tiny random-weight models the judge tests build and save to a temp folder."""


def word_tokenizer(words: list[str], *, pair_template: str):
    """A fast tokenizer over WORDS (lower-cased, split on whitespace), and its vocabulary.

    pair_template "t5": `A </s>` and `A </s> B </s>`; "bert": `[CLS] A [SEP]` and `[CLS] A [SEP] B [SEP]`.
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "</s>"]
    vocab = {word: n for n, word in enumerate(dict.fromkeys(specials + list(words)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    if pair_template == "t5":
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", vocab["</s>"])])
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", eos_token="</s>",
                                   cls_token="[CLS]", sep_token="[SEP]"), vocab
