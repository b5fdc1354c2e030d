"""The sentiment task type's formats: reviews-jsonl, and shop-reviews, a format with two parameters of its own (the
shop whose reviews these are, the shortest review kept), a count and a summary line of its own: declared here, it
reaches the import page, the API and `import_data` with no change outside this package."""

from annotate.task_types.formats import Count, ImportFormat, Parameter

SHOP = Parameter("shop", str, label="Shop", help="the shop whose reviews these are: their products are named "
                 "`<shop>:<product>`", refused="--shop names the shop of a shop-reviews file; format {fmt} has none")
MIN_CHARS = Parameter("min_chars", int, label="Shortest review", min_value=1, default=1,
                      help="reviews shorter than this many characters are not imported (counted)")


class ReviewsJsonl(ImportFormat):
    name = "reviews-jsonl"
    help = 'One review per line: {"product", "review", "text"}.'

    def run(self, *, campaign, paths, summary, unused) -> None:
        from .importers import reviews_import

        reviews_import(campaign=campaign, paths=paths, summary=summary, unused=unused)


class ShopReviews(ImportFormat):
    name = "shop-reviews"
    help = 'One review per line, {"product", "review", "text"}, of the shop named below.'
    parameters = (SHOP, MIN_CHARS)
    counts = (Count("reviews_too_short", help="shop-reviews: reviews shorter than min_chars, not imported."),)

    def run(self, *, campaign, paths, summary, unused, shop, min_chars) -> None:
        from .importers import reviews_import

        summary.counts["reviews_too_short"] = reviews_import(campaign=campaign, paths=paths, summary=summary,
                                                             unused=unused, shop=shop, min_chars=min_chars)

    def lines(self, summary) -> list[str]:
        return [f"reviews too short to import: {summary.count('reviews_too_short')}", *summary.notes]
