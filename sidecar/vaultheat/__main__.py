"""``python -m vaultheat`` runs the CLI."""

from vaultheat.cli import main

raise SystemExit(main())
