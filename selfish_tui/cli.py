"""The `selfish` console script.

    selfish play [--edition space|shipwrecked] [--bots N] [--level LEVEL] [--seed S] [--name NAME]
                 [--resume] [--variant RULE ...] [--tutorial]
    selfish connect [HOST[:PORT][,HOST[:PORT]...] | SERVER-NAME] [--name NAME]
                    [--lan-interface ADDR ...]
                    [--join CODE | --watch CODE] [--identity FILE | --guest]
    selfish host [--name NAME] [--port P] [--lan-name NAME] [--lan-interface ADDR ...]
    selfish web [--port 8080] [--host ADDR] [--server HOST:PORT]
    selfish replay FILE | GAME --server HOST[:PORT] [--turn N] [--seat N]
    selfish export GAME --server HOST[:PORT] [-o FILE]
    selfish bot ...        (the server package's headless protocol client)
    selfish simulate ...   (the server package's engine-only self-play)

The options are read by selfish_tui/arguments.py; each command is run by its function in
selfish_tui/commands.py.
"""

from __future__ import annotations

import sys

from selfish_tui import commands, i18n, replay_cli
from selfish_tui.arguments import build_parser, language_asked


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `selfish` console script."""
    args_in = list(sys.argv[1:] if argv is None else argv)
    # `bot` and `simulate` have their own parsers in the server package: hand them the rest.
    # What they print for a person is in the environment's language (docs/i18n.md).
    if args_in and args_in[0] in ("bot", "simulate"):
        i18n.set_language(i18n.choose_language())
        run = commands.bot if args_in[0] == "bot" else commands.simulate
        return run(args_in[1:])
    # The client's language (docs/i18n.md).
    i18n.set_language(i18n.choose_language(language_asked(args_in)))
    args = build_parser().parse_args(args_in)
    if args.command == "play":
        return commands.play(args)
    if args.command == "host":
        return commands.host(args)
    if args.command == "web":
        return commands.web(args)
    if args.command == "replay":
        return replay_cli.replay_command(args)
    if args.command == "export":
        return replay_cli.export_command(args)
    return commands.connect(args)


if __name__ == "__main__":
    sys.exit(main())
