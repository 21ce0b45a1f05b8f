"""Front ends that need no full-screen UI: print, JSON, RPC, plain REPL, model listing."""
