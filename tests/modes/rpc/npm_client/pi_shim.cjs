// pi's RpcClient starts `node <cliPath> --mode rpc ...`: this cliPath runs THIS project's pi
// (python -m pi_cli.cli) with the same arguments and stdio, and passes signals on.
const { spawn } = require("node:child_process");

const child = spawn(process.env.PI_SHIM_PYTHON, ["-m", "pi_cli.cli", ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGTERM" ? 143 : 1)));
