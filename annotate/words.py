"""How messages and prompts word lists (task types, imports, judges)."""


def or_list(words: list[str]) -> str:
    """"0, 1 or 2": how messages and prompts list a scale's grades."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"
