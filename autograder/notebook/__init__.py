"""Reading submitted notebooks (`parse`) and producing student notebooks (`release`)."""
