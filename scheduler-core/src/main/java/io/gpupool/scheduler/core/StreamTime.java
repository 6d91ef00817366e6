package io.gpupool.scheduler.core;

/**
 * Arithmetic on stream time (instants, ms) and durations (ms) that saturates instead of wrapping.
 * Requests carry any {@code long} (a runtime estimate of {@code Long.MAX_VALUE} means "runs for
 * ever"), and a wrapped sum turns "for ever" into "long ago": such a job met every deadline and
 * ended before every reservation.
 *
 * <p>The rule: an instant plus a duration saturates at {@link #NEVER} ({@code Long.MAX_VALUE}, later
 * than every instant) or at {@code Long.MIN_VALUE} (earlier than every instant, e.g. "never moved");
 * a difference of two instants saturates the same way (a duration longer than any), and so does a
 * product (milli-GPUs x ms). A saturated value only says "at least this far": so an end at
 * {@link #NEVER} ends by no instant, not even by {@code NEVER} itself ({@link #endsBy}).
 */
final class StreamTime {
    /** The saturated instant: what "now plus for ever" gives. */
    static final long NEVER = Long.MAX_VALUE;

    private StreamTime() {
    }

    /** {@code a + b}, saturated at {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE}. */
    static long plus(final long a, final long b) {
        final long r = a + b;
        // overflow only when both have the sign the result lacks
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** {@code a - b}, saturated at {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE}. */
    static long minus(final long a, final long b) {
        final long r = a - b;
        // overflow only when the signs of a and b differ and the result lost a's sign
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    /** {@code a * b}, saturated at {@code Long.MIN_VALUE} / {@code Long.MAX_VALUE}. */
    static long times(final long a, final long b) {
        final long high = Math.multiplyHigh(a, b);
        final long low = a * b;
        // the 128-bit product fits a long when its high half is only the sign of its low half
        if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
            return low;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    /** Whether something ending at {@code end} (maybe saturated) is over by {@code instant}. */
    static boolean endsBy(final long end, final long instant) {
        return end != NEVER && end <= instant;
    }
}
