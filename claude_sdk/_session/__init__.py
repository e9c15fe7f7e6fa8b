"""The session's parts: a thin AnyIO driver of ``claude_sdk._protocol.protocol.Protocol``.

``core`` (what the tasks share), ``reader`` (stdout -> protocol -> events), ``inbound`` (the
workers that serve the CLI's requests), ``handlers`` (what each request is answered with),
``stream`` (the consumer's iterators) and ``lifecycle`` (start, graceful finish, prompt abort).
The public facade is ``claude_sdk.session``.
"""
