"""Concord's version: shown in every page's footer, recorded in each report's software block (reports.methods) and
named in docs/upgrading.md, whose table says what each version changes for an installation that upgrades to it.

Raised with each release: the minor number for a release, the major one when an upgrade needs a step by hand.
tests/project/test_upgrade.py upgrades an installation of the version before (its fixture) to this one.
"""

VERSION = "1.0.0"
