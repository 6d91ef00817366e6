package io.gpupool.scheduler.core;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A double as text that is the same on every JDK: the text of decisions, reasons and evidence.
 * {@code Double.toString} changed its digits in JDK 19 (and {@code Formatter}'s %f/%e in JDK 21),
 * so a number formatted by the JDK can differ between the JVM that decided and the one that audits.
 * This takes the fewest digits (at least two) that read back as the same double, found with exact
 * BigDecimal arithmetic, and lays them out as Java 17's {@code Double.toString} did: plain from
 * 10^-3 up to 10^7 ("250.0", "0.125"), else "d.dddE±n". For ordinary values that is Java 17's text
 * exactly, which is what the recorded histories hold.
 */
public final class DecimalText {
    private static final double PLAIN_FROM = 1e-3;
    private static final double PLAIN_BELOW = 1e7;
    /** 17 significant digits always read back as the same double. */
    private static final int MAX_DIGITS = 17;
    private static final MathContext[] DIGITS = new MathContext[MAX_DIGITS + 1];

    static {
        for (int p = 1; p <= MAX_DIGITS; p++) {
            DIGITS[p] = new MathContext(p, RoundingMode.HALF_EVEN);
        }
    }

    private DecimalText() {
    }

    public static String of(final double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return Double.doubleToRawLongBits(d) < 0 ? "-0.0" : "0.0";
        }
        final double abs = Math.abs(d);
        if (abs < PLAIN_BELOW && d == Math.rint(d)) {
            return (long) d + ".0"; // the common case (whole scores), without BigDecimal
        }
        final BigDecimal digits = shortest(d);
        return abs >= PLAIN_FROM && abs < PLAIN_BELOW ? plain(digits) : scientific(digits);
    }

    /**
     * The decimal of fewest significant digits (two at least, as Java shows "d.d") that rounds to
     * {@code d}: for each length the nearest decimal of that length to d's exact value.
     */
    private static BigDecimal shortest(final double d) {
        final BigDecimal exact = new BigDecimal(d); // exact; BigDecimal.valueOf(double) would go through Double.toString
        for (int p = 2; p < MAX_DIGITS; p++) {
            final BigDecimal r = exact.round(DIGITS[p]);
            if (r.doubleValue() == d) {
                return r.stripTrailingZeros();
            }
        }
        return exact.round(DIGITS[MAX_DIGITS]).stripTrailingZeros();
    }

    private static String plain(final BigDecimal digits) {
        final String s = digits.toPlainString();
        return s.indexOf('.') < 0 ? s + ".0" : s;
    }

    private static String scientific(final BigDecimal digits) {
        final String unscaled = digits.unscaledValue().abs().toString();
        final int exponent = unscaled.length() - 1 - digits.scale();
        final String fraction = unscaled.length() > 1 ? unscaled.substring(1) : "0";
        return (digits.signum() < 0 ? "-" : "") + unscaled.charAt(0) + "." + fraction + "E" + exponent;
    }
}
