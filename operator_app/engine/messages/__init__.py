"""What a message run is made of, for every dialect: the events the engine announces, the
interface a dialect's engine half implements (`DialectEngine`, `BlockRunner`) and the context a
runner is given (`MessageContext`), the outlook of a write (what else its message writes), and
what the message's writes did to each file's lines (`lines.py`, the line-number rule).
May import: protocol, engine.{boundary, state, changes, textops}."""
