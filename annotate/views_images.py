"""The image files of image_relevance items, served to the campaign's own people only.

GET campaigns/<slug>/images/<item_id>/<variant>/   variant "full" (the original) or "thumb" (its JPEG thumbnail)

Annotators and researchers of the campaign may fetch any image of it (the grading page needs them);
everyone else gets a 404, as does an item of another campaign, an unknown variant or a missing file,
so the URL says nothing about what exists. Files live under settings.MEDIA_ROOT, which is never
served as a whole: this view is the only way to them.
"""

from django.http import FileResponse, Http404
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_GET

from annotate.access import campaign_for_member
from annotate.images import ImageMissingError, image_file
from annotate.models import Item

# The formats the importer admits (Pillow-checked), by Item.data["format"]; anything else is not served.
CONTENT_TYPES = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp", "GIF": "image/gif"}
EXTENSIONS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp", "GIF": ".gif"}
# variant in the URL -> the Item.data key naming its file
VARIANTS = {"full": "image", "thumb": "thumbnail"}
# An item's image does not change once imported; a day in the browser's own cache lets the page prefetch
# the next image and reuse it. "private": shared caches must never keep a file only members may see.
CACHE_SECONDS = 24 * 60 * 60


@require_GET
def campaign_image(request, slug, item_id, variant):
    campaign = campaign_for_member(request.user, slug)
    if variant not in VARIANTS:
        raise Http404("No such image variant.")
    try:
        item = Item.objects.only("pk", "data").get(pk=item_id, campaign=campaign, kind="image")
    except Item.DoesNotExist:
        raise Http404("No such image.") from None
    data = item.data or {}
    image_format = "JPEG" if variant == "thumb" else str(data.get("format") or "").upper()
    if image_format not in CONTENT_TYPES:
        raise Http404("No such image.")
    try:
        path = image_file(data, key=VARIANTS[variant])
    except ImageMissingError:
        raise Http404("No such image.") from None
    # Shown in the page, not downloaded ("inline"); the file name is neutral, the stored one may carry an id.
    response = FileResponse(
        path.open("rb"), content_type=CONTENT_TYPES[image_format],
        filename=f"image-{item.pk}-{variant}{EXTENSIONS[image_format]}",
    )
    response["X-Content-Type-Options"] = "nosniff"
    # Opened directly, a file that is not the image it claims to be can run nothing.
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    patch_cache_control(response, private=True, max_age=CACHE_SECONDS)
    return response
