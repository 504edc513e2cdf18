%% A BEAM workload with a known split, for test_runtimes: each round,
%% heavy/0 does 7 units of work and light/0 3, so heavy/0 holds about 70%
%% of the samples and light/0 30%, both under loop/1. The calls are not
%% tail calls, so that their frames stay on the stack while spin/2 runs.
%%   erl -noshell -pa DIR -eval 'busy:run(MS), halt().'
%% sorts/1 spends its time in the JIT's shared fragments instead (the
%% guard BIFs its fun calls, the garbage collections of its lists), for
%% test_runtimes' test_erlang_fragments:
%%   erl -noshell -pa DIR -eval 'busy:sorts(MS), halt().'
-module(busy).
-export([run/1, sorts/1]).

-define(UNIT, 20000).

run(Ms) ->
    loop(erlang:monotonic_time(millisecond) + Ms).

loop(End) ->
    case erlang:monotonic_time(millisecond) < End of
        true ->
            heavy(),
            light(),
            loop(End);
        false ->
            ok
    end.

heavy() -> spin(7 * ?UNIT, 0) + 1.

light() -> spin(3 * ?UNIT, 0) + 1.

spin(0, Acc) -> Acc;
spin(N, Acc) -> spin(N - 1, (Acc * 31 + N) band 16#ffffff).

sorts(Ms) ->
    sort_loop(erlang:monotonic_time(millisecond) + Ms).

sort_loop(End) ->
    case erlang:monotonic_time(millisecond) < End of
        true ->
            _ = lists:sort(fun(X, Y) -> X rem 97 > Y rem 97 end, lists:seq(1, 20000)),
            sort_loop(End);
        false ->
            ok
    end.
