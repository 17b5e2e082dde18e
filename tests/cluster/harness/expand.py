"""Kubelet variable references in `command`, `args` and `env[].value`.

Written from the documented behaviour (kubernetes.io, "Define Dependent Environment
Variables" and the API reference of EnvVar.value):
- `$(NAME)` is replaced by the value of NAME when NAME is defined, otherwise left as is;
- `$$` is an escaped `$`, so `$$(NAME)` yields the literal `$(NAME)`;
- any other `$` (followed by something that is not `(` or `$`, or at the end, or an
  unterminated `$(`) is kept verbatim;
- for env values only the variables defined earlier in the list are defined; for command
  and args, every variable of the container's env is.
"""


def expand(text, defined):
    """Returns `text` with its $(VAR) references resolved from the mapping `defined`."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c != "$" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
        elif nxt == "(":
            close = text.find(")", i + 2)
            if close < 0:
                # Unterminated: "$(" is kept and scanning goes on after it.
                out.append("$(")
                i += 2
                continue
            name = text[i + 2:close]
            out.append(defined[name] if name in defined else "$(" + name + ")")
            i = close + 1
        else:
            out.append("$" + nxt)
            i += 2
    return "".join(out)
