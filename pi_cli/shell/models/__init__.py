"""Models: from a model spec to a stream function (settings, keys, local servers), the models a
user can pick and cycle through, Claude Code aliases, token and cost accounting."""
