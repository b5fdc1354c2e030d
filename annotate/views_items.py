"""The Items page (researchers and adjudicators): a campaign's items with their categories, filtered by category or
topic, each category editable in place; and the POST that sets one item's category (also used by the adjudication
page).

GET  campaigns/SLUG/items/                       the list, ?category=NAME (or - for none), ?topic=ID, ?page=N
POST campaigns/SLUG/items/ITEM_ID/category/      {category, next}: set the category, back to NEXT (a page of this site)
"""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from annotate.access import campaign_for_adjudicator
from annotate.models import CATEGORY_MAX_LENGTH, Item
from annotate.selectors.items import NO_CATEGORY, campaign_categories, campaign_items_listed
from annotate.services.items import ItemCategoryError, item_category_set

ITEMS_PER_PAGE = 50


@require_GET
def campaign_items_page(request, slug):
    campaign = campaign_for_adjudicator(request.user, slug)
    category = request.GET.get("category") or None
    topic = (request.GET.get("topic") or "").strip()
    page = Paginator(campaign_items_listed(campaign=campaign, category=category, topic=topic),
                     ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "annotate/campaign_items.html", {
        "campaign": campaign, "page": page, "categories": campaign_categories(campaign=campaign),
        "category": category or "", "topic": topic, "no_category": NO_CATEGORY, "query": query.urlencode(),
        "max_length": CATEGORY_MAX_LENGTH, "here": request.get_full_path()})


@require_POST
def item_category_post(request, slug, item_id):
    campaign = campaign_for_adjudicator(request.user, slug)
    item = Item.objects.filter(campaign=campaign, pk=item_id).select_related("campaign").first()
    if item is None:
        raise Http404("No such item in this campaign.")
    try:
        item = item_category_set(item=item, user=request.user, category=request.POST.get("category", ""))
    except ItemCategoryError as exc:
        messages.error(request, f"Item {item.external_id}: {exc}.")
    else:
        messages.success(request, f"Item {item.external_id}: " + (
            f"category “{item.category}”." if item.category else "no category."))
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        back = reverse("campaign-items", kwargs={"slug": campaign.slug})
    return redirect(back)
