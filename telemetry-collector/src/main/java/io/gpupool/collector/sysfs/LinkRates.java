package io.gpupool.collector.sysfs;

/**
 * Byte rates of one port from two reads. sysfs counts data in units of 4 octets. No rate comes out
 * of a first read, a counter that went down (reset, or a 32-bit wrap we cannot tell from one),
 * a saturated counter, or a zero interval: null is honest, a negative or stuck rate is not.
 */
public final class LinkRates {
    private LinkRates() {
    }

    public static Double txBytesPerSec(final PortReading previous, final PortReading current) {
        return bytesPerSec(previous, current, "port_xmit_data");
    }

    public static Double rxBytesPerSec(final PortReading previous, final PortReading current) {
        return bytesPerSec(previous, current, "port_rcv_data");
    }

    static Double bytesPerSec(final PortReading previous, final PortReading current, final String counter) {
        if (previous == null || current == null) {
            return null;
        }
        if (current.saturated().contains(counter) || previous.saturated().contains(counter)) {
            return null;
        }
        final Long before = previous.counter(counter);
        final Long now = current.counter(counter);
        final long nanos = current.readAtNanos() - previous.readAtNanos();
        if (before == null || now == null || nanos <= 0 || now < before) {
            return null;
        }
        return (now - before) * 4.0 * 1e9 / nanos;
    }
}
