# The Elixir twin of busy.erl, for test_runtimes: each round, heavy/0 does
# 7 units of work and light/0 3 (about 70% and 30% of the samples), under
# loop/1; their calls are not tail calls, so their frames stay on the stack.
#   elixir busy.exs MS
defmodule Busy do
  @unit 20_000

  def run(ms), do: loop(System.monotonic_time(:millisecond) + ms)

  def loop(deadline) do
    if System.monotonic_time(:millisecond) < deadline do
      heavy()
      light()
      loop(deadline)
    else
      :ok
    end
  end

  def heavy, do: spin(7 * @unit, 0) + 1

  def light, do: spin(3 * @unit, 0) + 1

  defp spin(0, acc), do: acc
  defp spin(n, acc), do: spin(n - 1, :erlang.band(acc * 31 + n, 0xFFFFFF))
end

[ms] = System.argv()
Busy.run(String.to_integer(ms))
