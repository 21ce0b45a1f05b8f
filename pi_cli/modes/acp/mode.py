"""``pi --mode acp``: pi as an Agent Client Protocol agent over stdio (Zed, toad, JetBrains...).

Built on the ``agent-client-protocol`` SDK (imported only in this mode). Each ACP session is one
pi shell in the session's ``cwd``; its id is the pi session id, so ``session/load`` resumes a
pi session (and replays it as updates). Permission modes are the session modes, the model is a
``model`` config option, slash commands / skills / templates are available commands; approvals
go to the client as ``session/request_permission`` (:mod:`.acp_updates`); edits go through the
client's buffers when it offers ``fs`` (:mod:`.acp_fs`); client terminals are never used.

Start-up (issue 25): only what answers ``initialize`` is imported with this module (the SDK and
the transport). The session machinery (agent_core, pi's shell and tools, the updates) is
imported right after that answer is written (:meth:`PiAgent.warm_up`), while the client reads it and
sends ``session/new``; the methods that use it import it where they do.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli import __version__
from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.modes.acp.sdk import (
    PROTOCOL_VERSION,
    RequestError,
    build_validators,
    helpers,
    run_agent,
    schema,
)
from pi_cli.modes.acp.transport import checked_stdio

if TYPE_CHECKING:
    from pi_cli.modes.acp.sessions import Listed
    from pi_cli.modes.acp.updates import AcpSession
    from pi_cli.shell import CodingAgent

_FIRST_MESSAGES = (
    schema.NewSessionRequest,
    schema.NewSessionResponse,
    schema.SessionNotification,
    schema.PromptRequest,
    schema.PromptResponse,
    schema.AvailableCommand,
    schema.SessionModeState,
    schema.SessionConfigOptionSelect,
)
"""The SDK's models every session uses (their validators are built on first use), with the
updates a session sends (``SessionNotification``'s): :func:`~.sdk.build_validators`."""

_STOP = {"refusal": "refusal", "length": "max_tokens", "aborted": "cancelled"}


def run_acp(args: LaunchArgs) -> int:
    """Serve ACP on stdin/stdout until the client closes it."""
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    return ExitCode.OK


async def _serve(args: LaunchArgs, agent: PiAgent | None = None) -> None:
    agent = agent or PiAgent(args)
    try:
        # A malformed line from the client gets a JSON-RPC error; the session goes on.
        transport = await checked_stdio()
        # session/fork and session/resume are still "unstable" in the SDK's router: enabled.
        await run_agent(agent, transport, use_unstable_protocol=True)  # type: ignore[arg-type]  # implements what it uses
    finally:
        await agent.close_all()


class PiAgent:
    """The ACP agent: one :class:`AcpSession` per session the client opens."""

    def __init__(self, args: LaunchArgs) -> None:
        self.args = args
        self.conn: Any = None
        self.client_caps: schema.ClientCapabilities | None = None
        self.sessions: dict[str, AcpSession] = {}
        self.shells: dict[str, CodingAgent] = {}  # the shells run here, by session id
        self.warmed = False

    def on_connect(self, conn: Any) -> None:
        """The SDK hands over the client connection."""
        self.conn = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **_: Any,
    ) -> schema.InitializeResponse:
        """Capabilities: load, list, resume, close and fork sessions, images, embedded context,
        MCP servers from the client (stdio, http, sse; they join pi's configured ones)."""
        self.client_caps = client_capabilities
        if not self.warmed:
            # Runs once this answer is written: the answer goes out without waiting for it.
            asyncio.get_running_loop().call_soon(self.warm_up)
        return schema.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
                session_capabilities=schema.SessionCapabilities(
                    list=schema.SessionListCapabilities(),
                    resume=schema.SessionResumeCapabilities(),
                    close=schema.SessionCloseCapabilities(),
                    fork=schema.SessionForkCapabilities(),
                ),
            ),
            agent_info=schema.Implementation(name="pi", title="pi", version=__version__),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        """pi reads provider keys from its environment: nothing to authenticate."""
        return None

    # ------------------------------------------------------------------ sessions

    def warm_up(self) -> None:
        """Import what sessions use and build the SDK validators they need (once).

        Start-up ends here: what it made lives as long as the process, out of the collector's
        way (see :mod:`pi_cli.cli`, which turned collection off for it).
        """
        if self.warmed:
            return
        self.warmed = True
        try:
            self._import_session_machinery()
            build_validators(_FIRST_MESSAGES)
        finally:
            gc.freeze()
            gc.enable()

    def _import_session_machinery(self) -> None:
        """pi's shell, tools and the ACP session modules (the shells run in this process)."""
        from pi_cli.modes.acp import fs, sessions, updates  # noqa: F401
        from pi_cli.modes.common import try_build_shell  # noqa: F401
        from pi_cli.shell import CodingAgent  # noqa: F401

    async def _open(self, cwd: str, session: str | None, servers: Any = None) -> AcpSession:
        return self._host(self._build(cwd, session, servers))

    def _build(self, cwd: str, session: str | None, servers: Any) -> CodingAgent:
        from pi_cli.modes.acp.content import client_servers
        from pi_cli.modes.common import try_build_shell

        options = dataclasses.replace(
            self.args.shell,
            mcp_servers=client_servers(servers),
            cwd=Path(cwd),
            approvals="remote",
            wake_when_idle=False,  # an ACP client starts every turn (monitors wait for it)
            session=session,
            continue_session=False,
        )
        args = dataclasses.replace(self.args, shell=options)
        shell = try_build_shell(args)
        if isinstance(shell, str):
            raise RequestError.invalid_params({"message": shell})
        return shell

    def _host(self, shell: CodingAgent) -> AcpSession:
        from pi_cli.modes.acp.fs import ClientEditTool, ClientFiles, ClientWriteTool
        from pi_cli.modes.acp.updates import AcpSession

        self.warm_up()  # a client that opens a session without initialize (done after it)
        session_id = shell.session.session_id
        acp_session = AcpSession(session_id, shell, self.conn)
        fs = getattr(self.client_caps, "fs", None)
        if fs is not None and fs.read_text_file and fs.write_text_file:
            files = ClientFiles(self.conn, session_id)
            for tool in (ClientEditTool(shell.cwd, files), ClientWriteTool(shell.cwd, files)):
                shell.replace_tool(tool)
        self.sessions[session_id] = acp_session
        self.shells[session_id] = shell
        return acp_session

    async def _fork(self, session_id: str, cwd: str, servers: Any = None) -> AcpSession:
        shell = self._build(cwd, session_id, servers)
        if shell.session.session_id != session_id:
            await shell.aclose()
            raise RequestError.invalid_params({"message": f"no pi session {session_id}"})
        shell.fork()  # a new file with the conversation so far, and the shell moves to it
        return self._host(shell)

    async def _listed(self, cwd: str | None) -> list[Listed]:
        from pi_cli.modes.acp.sessions import local_sessions

        return await asyncio.to_thread(local_sessions, cwd)

    async def _release(self, session: AcpSession) -> None:
        self.sessions.pop(session.session_id, None)
        self.shells.pop(session.session_id, None)
        await session.close()
        await session.shell.aclose()

    def _ready(self, session: AcpSession) -> None:
        self._commands(session)
        self._models_later(session)

    async def _available_models(self, session: AcpSession) -> list[dict[str, Any]]:
        return await self.shells[session.session_id].controls.available_models()

    async def _set_mode(self, session: AcpSession, mode: str) -> None:
        self.shells[session.session_id].permissions.set_mode(mode)

    async def _set_model(self, session: AcpSession, spec: str) -> None:
        self.shells[session.session_id].set_model(spec)

    def _state(self, session: AcpSession, models: list[str] | None = None) -> dict[str, Any]:
        from pi_cli.shell import MODE_DESCRIPTIONS, MODES

        shell = session.shell
        choices = list(dict.fromkeys([shell.model_id, *(models or session.models)]))
        modes = schema.SessionModeState(
            current_mode_id=shell.permissions.mode,
            available_modes=[
                schema.SessionMode(id=mode, name=mode, description=MODE_DESCRIPTIONS[mode])
                for mode in MODES
            ],
        )
        model = schema.SessionConfigOptionSelect(
            id="model",
            name="Model",
            category="model",
            type="select",
            current_value=shell.model_id,
            options=[schema.SessionConfigSelectOption(value=m, name=m) for m in choices],
        )
        return {"modes": modes, "config_options": [model]}

    def _commands(self, session: AcpSession) -> None:
        from pi_cli.modes.acp.updates import available_commands

        commands = available_commands(session.shell)
        session.update(helpers.update_available_commands(commands))

    def _models_later(self, session: AcpSession) -> None:
        """The model list (models.json, keyed providers, local servers) follows as an update."""

        async def fetch() -> None:
            try:
                rows = await self._available_models(session)
            except Exception:  # noqa: BLE001 - the current model stays the only choice
                return
            session.models = [f"{row['provider']}/{row['id']}" for row in rows if row.get("id")]
            options = self._state(session)["config_options"]
            session.update(
                schema.ConfigOptionUpdate(
                    session_update="config_option_update", config_options=options
                )
            )

        session.background.add(asyncio.ensure_future(fetch()))

    async def new_session(
        self, cwd: str, mcp_servers: Any = None, **_: Any
    ) -> schema.NewSessionResponse:
        """A fresh pi session in ``cwd``."""
        session = await self._open(cwd, None, mcp_servers)
        self._ready(session)
        return schema.NewSessionResponse(session_id=session.session_id, **self._state(session))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **_: Any
    ) -> schema.LoadSessionResponse:
        """Resume pi session ``session_id`` and replay its conversation as updates."""
        old = self.sessions.get(session_id)
        if old is not None:
            await self._release(old)
        session = await self._open(cwd, session_id, mcp_servers)
        if session.session_id != session_id:
            await self._release(session)
            raise RequestError.invalid_params({"message": f"no pi session {session_id}"})
        from pi_cli.modes.acp.content import replay

        replay(session)
        self._ready(session)
        await session.flush()
        return schema.LoadSessionResponse(**self._state(session))

    async def set_session_mode(self, mode_id: str, session_id: str, **_: Any) -> None:
        """A permission mode (default, acceptEdits, auto, plan, dontAsk, bypassPermissions)."""
        try:
            await self._set_mode(self._session(session_id), mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **_: Any
    ) -> schema.SetSessionConfigOptionResponse:
        """``model``: switch the model (``provider/model``)."""
        session = self._session(session_id)
        if config_id != "model":
            raise RequestError.invalid_params({"message": f"unknown option {config_id}"})
        try:
            await self._set_model(session, str(value))
        except Exception as exc:  # noqa: BLE001 - ConfigError: a clear message for the client
            raise RequestError.invalid_params({"message": str(exc)}) from None
        return schema.SetSessionConfigOptionResponse(
            config_options=self._state(session)["config_options"]
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **_: Any
    ) -> schema.ListSessionsResponse:
        """``session/list``: pi's sessions of ``cwd`` (of every workspace without), newest first."""
        from pi_cli.modes.acp import sessions

        return await sessions.list_page(self, cwd, cursor)

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **_: Any
    ) -> schema.ResumeSessionResponse:
        """``session/resume``: open a session without replaying it."""
        from pi_cli.modes.acp import sessions

        return await sessions.resume(self, session_id, cwd, mcp_servers)

    async def close_session(self, session_id: str, **_: Any) -> schema.CloseSessionResponse:
        """``session/close``."""
        from pi_cli.modes.acp import sessions

        return await sessions.close(self, session_id)

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **_: Any
    ) -> schema.ForkSessionResponse:
        """``session/fork``: a new session with ``session_id``'s conversation."""
        from pi_cli.modes.acp import sessions

        return await sessions.fork(self, session_id, cwd, mcp_servers)

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"message": f"unknown session {session_id}"})
        return session

    # ------------------------------------------------------------------ prompts

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> schema.PromptResponse:
        """Run one prompt to its end; updates stream meanwhile."""
        from agent_core import AssistantMessage
        from pi_cli.modes.acp.content import prompt_input

        session = self._session(session_id)
        shell = session.shell
        text, images = prompt_input(prompt, shell.cwd)
        first = len(shell.messages)
        result = await shell.submit(text, images=images or None)
        await shell.wait_idle()
        if result is not None and result.output:
            session.update(helpers.update_agent_message_text(result.output))
        await session.flush()
        if shell.run_aborted:
            return schema.PromptResponse(stop_reason="cancelled")
        answers = [m for m in shell.messages[first:] if isinstance(m, AssistantMessage)]
        reason = answers[-1].stop_reason if answers else "stop"
        return schema.PromptResponse(stop_reason=_STOP.get(reason, "end_turn"))  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **_: Any) -> None:
        """``session/cancel``: abort the run; open permission questions are withdrawn."""
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel_approvals()
            session.shell.abort()

    async def close_all(self) -> None:
        """Close every session's shell (MCP servers stopped, hooks run)."""
        for session in list(self.sessions.values()):
            await self._release(session)
