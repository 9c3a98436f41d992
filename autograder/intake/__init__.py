"""Finding submissions: notebooks, folders of them, zips of them."""
