package io.gpupool.scheduler.core;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

/**
 * The nodes that could take one job shape, in the order a reservation plan reads them: those ready
 * now in pool order, then the others by when they are expected to be ready, then pool order. That is
 * the order of the planner's packed keys (wait from now, then slot), kept between plans: a node's
 * readiness is worked out again only when the node changed ({@link NodeChanges}) or stream time
 * reached the bound of its answer, so a plan in a pool whose queue stands costs what changed, not
 * the pool. Derived, never stored; dropped with the standing plans when capacity may be lost.
 */
final class ReadyOrder implements Iterable<Integer> {
    private static final int OUT = 0;
    private static final int NOW = 1;
    private static final int LATER = 2;

    private final PoolState st;
    private final ToLongFunction<NodeState> readyAt;
    private final ToLongFunction<NodeState> validUntilOf;
    /** Per slot: a candidate node at all (allowed model, fabric), fixed until the order is dropped. */
    private final boolean[] member;
    private final int[] where;
    private final long[] at;
    private final long[] validUntil;
    private final int[] version;
    private final TreeSet<Integer> now = new TreeSet<>();
    private final TreeSet<Integer> later;
    /** Answers that hold only until a time: worked out again once stream time gets there. */
    private final TreeSet<Integer> expiring;
    private long generation;
    private int read;
    /** Worked out at stream time Long.MAX_VALUE. */
    private boolean builtAtEnd;

    /**
     * @param readyAt      the planner's readiness of a node for the shape (at least now; MAX_VALUE: never)
     * @param validUntilOf until when the answer just given holds (MAX_VALUE: until the node changes)
     */
    ReadyOrder(final PoolState st, final boolean[] member, final ToLongFunction<NodeState> readyAt,
               final ToLongFunction<NodeState> validUntilOf) {
        this.st = st;
        this.member = member;
        this.readyAt = readyAt;
        this.validUntilOf = validUntilOf;
        final int n = member.length;
        this.where = new int[n];
        this.at = new long[n];
        this.validUntil = new long[n];
        this.version = new int[n];
        this.later = new TreeSet<>(Comparator.<Integer>comparingLong(s -> at[s]).thenComparingInt(s -> s));
        this.expiring = new TreeSet<>(Comparator.<Integer>comparingLong(s -> validUntil[s]).thenComparingInt(s -> s));
        rebuild();
    }

    /** Brings every node's place up to date with the changes since the last call and with stream time. */
    void refresh() {
        // At the end of time an overdue job's end ("now") is the planner's "never": a node kept as ready now
        // is not, for a plan worked out afresh there, so the order is worked out afresh too
        if (generation != st.nodeChanges.generation() || (st.nowMs == Long.MAX_VALUE && !builtAtEnd)) {
            rebuild();
            return;
        }
        for (; read < st.nodeChanges.size(); read++) {
            final int s = st.nodeChanges.slot(read);
            if (s < member.length && member[s] && st.node(s) != null && st.node(s).version != version[s]) {
                place(s);
            }
        }
        while (!expiring.isEmpty() && validUntil[expiring.first()] <= st.nowMs) {
            place(expiring.first());
        }
    }

    private void rebuild() {
        now.clear();
        later.clear();
        expiring.clear();
        Arrays.fill(where, OUT);
        generation = st.nodeChanges.generation();
        builtAtEnd = st.nowMs == Long.MAX_VALUE;
        for (int s = 0; s < member.length; s++) {
            if (member[s] && st.node(s) != null) {
                place(s);
            }
        }
        // the readiness worked out above may itself have changed no node: start reading after it
        read = st.nodeChanges.size();
    }

    private void place(final int s) {
        if (where[s] == NOW) {
            now.remove(s);
        } else if (where[s] == LATER) {
            later.remove(s);
        }
        if (validUntil[s] != Long.MAX_VALUE) {
            expiring.remove(s);
        }
        final NodeState n = st.node(s);
        final long t = readyAt.applyAsLong(n);
        version[s] = n.version;
        validUntil[s] = validUntilOf.applyAsLong(n);
        if (validUntil[s] != Long.MAX_VALUE) {
            expiring.add(s);
        }
        // Only "never" is left out here. How far ahead is too far to plan with depends on the time of the plan,
        // and an answer is kept until the node changes or its bound passes: the planner applies that rule as it
        // reads ({@link #tooFar}), so a kept order gives what one worked out afresh (a restored engine's) gives.
        if (t == Long.MAX_VALUE) {
            where[s] = OUT;
        } else if (t <= st.nowMs) {
            where[s] = NOW;
            now.add(s);
        } else {
            where[s] = LATER;
            at[s] = t;
            later.add(s);
        }
    }

    /** Candidate nodes that will be ready at some time. */
    int size() {
        return now.size() + later.size();
    }

    /** How long from now until the node is ready (0: now); only for a slot this order returned. */
    long waitOf(final int slot) {
        return where[slot] == NOW ? 0 : StreamTime.minus(at[slot], st.nowMs);
    }

    /**
     * A wait too long to plan with (the planner's rule since its sort keys packed the wait above 20 bits of
     * slot): such a node counts as never ready. The order is by time, so every node after one too far is too.
     */
    static boolean tooFar(final long wait) {
        return wait >= (Long.MAX_VALUE >> 21);
    }

    /** Slots in plan order: ready now by slot, then by expected time and slot. */
    @Override
    public Iterator<Integer> iterator() {
        final Iterator<Integer> first = now.iterator();
        final Iterator<Integer> second = later.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return first.hasNext() || second.hasNext();
            }

            @Override
            public Integer next() {
                if (first.hasNext()) {
                    return first.next();
                }
                if (second.hasNext()) {
                    return second.next();
                }
                throw new NoSuchElementException();
            }
        };
    }
}
