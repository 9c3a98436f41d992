"""The base layer every other layer may use: an assignment's manifest, course.toml, the typed settings a face
builds (`settings`), where the course secret is found (`secret`), the late policy as set, every size and time cap
(`limits`), atomic file writes, and Python-version shims."""
