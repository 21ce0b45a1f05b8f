"""Text pi prints or stores: the one terminal sanitizer (:mod:`.terminal`) and secret redaction
(:mod:`.redaction`)."""
