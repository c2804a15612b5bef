"""Several servers as one on PostgreSQL: room leases with epochs (``leases``) and what a node
does about the others (``node``: moved, failover, one lobby)."""
