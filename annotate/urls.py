from django.urls import path

from annotate import views, views_adjudicate, views_annotate, views_campaigns, views_images, views_items

urlpatterns = [
    path("", views.home, name="home"),
    # Before campaigns/<slug>/: "new" is a reserved slug (annotate.services.campaigns.RESERVED_SLUGS).
    path("campaigns/new/", views_campaigns.campaign_new, name="campaign-new"),
    path("campaigns/<slug:slug>/", views.campaign_detail, name="campaign-detail"),
    path("campaigns/<slug:slug>/options/", views.campaign_options, name="campaign-options"),
    path("campaigns/<slug:slug>/settings/", views_campaigns.campaign_settings, name="campaign-settings"),
    path("campaigns/<slug:slug>/people/", views_campaigns.campaign_people, name="campaign-people"),
    path("campaigns/<slug:slug>/annotate/", views_annotate.annotate, name="annotate"),
    path("campaigns/<slug:slug>/annotate/submit/", views_annotate.annotate_submit, name="annotate-submit"),
    path("campaigns/<slug:slug>/annotate/draft/", views_annotate.annotate_draft, name="annotate-draft"),
    path("campaigns/<slug:slug>/adjudicate/", views_adjudicate.adjudication_queue_page, name="adjudicate"),
    path("campaigns/<slug:slug>/adjudicate/<int:unit_id>/", views_adjudicate.adjudication_unit_page,
         name="adjudicate-unit"),
    path("campaigns/<slug:slug>/items/", views_items.campaign_items_page, name="campaign-items"),
    path("campaigns/<slug:slug>/items/<int:item_id>/category/", views_items.item_category_post,
         name="item-category"),
    path("campaigns/<slug:slug>/images/<int:item_id>/<variant>/", views_images.campaign_image, name="campaign-image"),
]
