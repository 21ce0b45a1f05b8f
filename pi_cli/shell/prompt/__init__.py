"""The prompt: the system prompt, context files and their ``@`` imports, skills, prompt templates,
``/init``, images, and the front matter YAML subset they are written in."""
