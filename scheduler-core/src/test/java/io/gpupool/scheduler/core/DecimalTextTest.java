package io.gpupool.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** DecimalText gives Java 17's Double.toString text for ordinary values, and always reads back exactly. */
class DecimalTextTest {

    @Test
    void writesWhatJava17Wrote() {
        // literals, not Double.toString: this must hold on every JDK
        assertThat(DecimalText.of(0.0)).isEqualTo("0.0");
        assertThat(DecimalText.of(-0.0)).isEqualTo("-0.0");
        assertThat(DecimalText.of(250.0)).isEqualTo("250.0");
        assertThat(DecimalText.of(-5250.0)).isEqualTo("-5250.0");
        assertThat(DecimalText.of(2.5)).isEqualTo("2.5");
        assertThat(DecimalText.of(0.1)).isEqualTo("0.1");
        assertThat(DecimalText.of(0.001)).isEqualTo("0.001");
        assertThat(DecimalText.of(1.0 / 3)).isEqualTo("0.3333333333333333");
        assertThat(DecimalText.of(2.0 / 3)).isEqualTo("0.6666666666666666");
        assertThat(DecimalText.of(1234567.5)).isEqualTo("1234567.5");
        assertThat(DecimalText.of(9999999.0)).isEqualTo("9999999.0");
        assertThat(DecimalText.of(1e7)).isEqualTo("1.0E7");
        assertThat(DecimalText.of(1.5e10)).isEqualTo("1.5E10");
        assertThat(DecimalText.of(1e-4)).isEqualTo("1.0E-4");
        assertThat(DecimalText.of(-1.25e-7)).isEqualTo("-1.25E-7");
        assertThat(DecimalText.of(Double.MAX_VALUE)).isEqualTo("1.7976931348623157E308");
        assertThat(DecimalText.of(Double.MIN_VALUE)).isEqualTo("4.9E-324");
        assertThat(DecimalText.of(Double.NaN)).isEqualTo("NaN");
        assertThat(DecimalText.of(Double.NEGATIVE_INFINITY)).isEqualTo("-Infinity");
    }

    /** The engine's numbers are sums of thousandths and of binary fractions: Java 17 printed those shortest. */
    @Test
    void equalsDoubleToStringOnOrdinaryValues() {
        final List<String> differ = new ArrayList<>();
        for (int k = -5_000; k <= 5_000; k++) {
            for (final double d : new double[] {k / 1000.0, k / 8.0, k * 0.1, k * 37.5}) {
                if (!DecimalText.of(d).equals(Double.toString(d))) {
                    differ.add(DecimalText.of(d) + " vs " + Double.toString(d));
                }
            }
        }
        assertThat(differ).isEmpty();
    }

    @Test
    void readsBackAsTheSameDouble() {
        final SplittableRandom rnd = new SplittableRandom(16);
        final List<String> differ = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            // mostly the magnitudes a pool has, some from anywhere (slow: exact BigDecimals of ~700 digits)
            final double d = i % 10 == 0 ? Double.longBitsToDouble(rnd.nextLong())
                    : (rnd.nextDouble() - 0.5) * StrictMath.pow(10, rnd.nextInt(-6, 10));
            if (!Double.isNaN(d) && Double.parseDouble(DecimalText.of(d)) != d) {
                differ.add(DecimalText.of(d) + " for " + Double.doubleToRawLongBits(d));
            }
        }
        assertThat(differ).isEmpty();
    }
}
