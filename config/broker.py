"""The embedded broker: kombu's SQLAlchemy transport, polling the queue table every 0.1 s instead of every 1 s.

kombu's virtual transports wait `polling_interval` seconds each time they find the queue empty. With one
task per judge batch and a prefetch of one, a 1 s wait added up to a second per batch (EM on NQ301:
15 s for 1,530 items). The stock channel passes every transport option to SQLAlchemy's create_engine(),
which refuses `polling_interval`, so the interval is set on the class rather than through the options.
"""

from kombu.transport import TRANSPORT_ALIASES
from kombu.transport.sqlalchemy import Transport as SQLAlchemyTransport

POLLING_INTERVAL_S = 0.1


class Transport(SQLAlchemyTransport):
    polling_interval = POLLING_INTERVAL_S


def register() -> None:
    """Make `sqla+...` broker URLs use this transport."""
    TRANSPORT_ALIASES["sqla"] = TRANSPORT_ALIASES["sqlalchemy"] = "config.broker:Transport"
