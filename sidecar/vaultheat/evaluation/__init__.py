"""``vaultheat eval``: search and related-notes quality on labelled sets, per configuration."""
