"""A small Python SDK (mcp==2.3.0) server for interop/codegen.sh: tools
whose schemas a typed client must handle (a pydantic model as structured
output, an enum argument, a non-identifier tool name, a list argument).

    python python_typed_server.py stdio
"""

from enum import Enum

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

server = MCPServer("py-typed", version="2.3.0")


class Unit(str, Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


class Weather(BaseModel):
    city: str
    temperature: float
    unit: Unit


@server.tool()
def add(a: int, b: int) -> str:
    """Add two integers."""
    return f"{a + b}"


@server.tool(name="get-weather")
def get_weather(city: str, unit: Unit = Unit.celsius) -> Weather:
    """The weather in a city (always 21 degrees Celsius, or 69.8 F)."""
    temperature = 21.0 if unit == Unit.celsius else 69.8
    return Weather(city=city, temperature=temperature, unit=unit)


@server.tool()
def join(words: list[str], separator: str = " ") -> str:
    """Join words."""
    return separator.join(words)


if __name__ == "__main__":
    server.run("stdio")
