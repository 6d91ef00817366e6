package io.gpupool.scheduler.core;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A double as the shortest plain decimal that reads back to the same double. Written with BigDecimal
 * arithmetic, which the JDK specifies exactly, because {@code Double.toString} changed its output in
 * JDK 19: settings written into the journal and snapshots must not depend on the JDK that wrote them.
 */
final class PlainDecimal {
    private static final int MAX_DIGITS = 17; // every double reads back from 17 significant digits

    private PlainDecimal() {
    }

    static String of(final double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            return Double.toString(d); // "NaN", "Infinity": the same in every JDK
        }
        if (d == 0) {
            return Double.compare(d, 0.0) < 0 ? "-0" : "0";
        }
        final BigDecimal exact = new BigDecimal(d);
        for (int digits = 1; digits < MAX_DIGITS; digits++) {
            final BigDecimal shorter = exact.round(new MathContext(digits, RoundingMode.HALF_EVEN));
            if (shorter.doubleValue() == d) {
                return shorter.stripTrailingZeros().toPlainString();
            }
        }
        return exact.round(new MathContext(MAX_DIGITS, RoundingMode.HALF_EVEN)).stripTrailingZeros().toPlainString();
    }
}
