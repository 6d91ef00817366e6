package io.gpupool.scheduler.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/** Saturating stream-time arithmetic: exact where the result fits a long, clamped where it does not. */
class StreamTimeTest {
    private static final long MAX = Long.MAX_VALUE;
    private static final long MIN = Long.MIN_VALUE;

    /** The exact result, clamped to a long: what saturation promises. */
    private static long clamped(final BigInteger exact) {
        return exact.max(BigInteger.valueOf(MIN)).min(BigInteger.valueOf(MAX)).longValueExact();
    }

    @Provide
    Arbitrary<Long> times() {
        // the edges, where wrapping happens, as often as anywhere else
        return Arbitraries.frequencyOf(
                Tuple.of(1, Arbitraries.of(MIN, MIN + 1, -2L, -1L, 0L, 1L, 2L, MAX / 2, MAX / 2 + 1,
                        MIN / 2, MIN / 2 - 1, MAX - 1, MAX, 3_037_000_499L, 3_037_000_500L, -3_037_000_500L)),
                Tuple.of(1, Arbitraries.longs()));
    }

    @Property(tries = 2_000)
    void plusMinusAndTimesAreTheExactResultClamped(@ForAll("times") final long a, @ForAll("times") final long b) {
        final BigInteger x = BigInteger.valueOf(a);
        final BigInteger y = BigInteger.valueOf(b);
        assertEquals(clamped(x.add(y)), StreamTime.plus(a, b), a + " + " + b);
        assertEquals(clamped(x.subtract(y)), StreamTime.minus(a, b), a + " - " + b);
        assertEquals(clamped(x.multiply(y)), StreamTime.times(a, b), a + " * " + b);
    }

    @Example
    void anInstantPlusForeverIsNeverAndDifferencesSaturate() {
        assertEquals(StreamTime.NEVER, StreamTime.plus(3_600_000, MAX));
        assertEquals(StreamTime.NEVER, StreamTime.plus(MAX / 2 + 1, MAX / 2 + 1));
        assertEquals(MAX / 2 + MAX / 2, StreamTime.plus(MAX / 2, MAX / 2), "no saturation while it fits");
        assertEquals(MIN, StreamTime.plus(MIN + 1, -2));
        assertEquals(MAX, StreamTime.minus(0, MIN), "now minus 'never moved' is longer ago than any cooldown");
        assertEquals(MIN, StreamTime.minus(-2, MAX));
        assertEquals(MIN + 1, StreamTime.minus(0, MAX), "fits: not saturated");
        assertEquals(MAX, StreamTime.times(8_000, MAX / 1_000));
        assertEquals(MIN, StreamTime.times(-8_000, MAX / 1_000));
        assertEquals(MAX, StreamTime.times(MIN, MIN));
        assertEquals(MAX, StreamTime.times(MIN, -1), "-MIN does not fit a long");
        assertEquals(MIN, StreamTime.times(MIN, 1));
    }

    @Example
    void anEndThatSaturatedEndsByNoInstant() {
        assertFalse(StreamTime.endsBy(StreamTime.NEVER, MAX), "never is not by 'never' either");
        assertFalse(StreamTime.endsBy(StreamTime.plus(1_000, MAX), MAX));
        assertTrue(StreamTime.endsBy(MAX - 1, MAX));
        assertTrue(StreamTime.endsBy(5, 5));
        assertFalse(StreamTime.endsBy(6, 5));
    }
}
