"""The API's JSON parser: DRF's, except that a body nested past Python's parser's depth is a 400 like any other
malformed JSON (DRF's catches ValueError only, so json's RecursionError was a 500)."""

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - its lists and objects nest too deeply") from None
