"""The base layer every other layer may use: an assignment's manifest, course.toml, the late policy, every
size and time cap (`limits`), atomic file writes, and Python-version shims."""
