package io.gpupool.scheduler.audit.reality;

/**
 * The moments a reality check judges, epoch ms, both ends inclusive. The whole sink history is
 * still read, so that a part's start and end are known on either side of the window.
 */
public record RealityWindow(long fromMs, long toMs) {
    public static final RealityWindow ALL = new RealityWindow(Long.MIN_VALUE, Long.MAX_VALUE);

    public boolean contains(final long ms) {
        return ms >= fromMs && ms <= toMs;
    }

    /** The window that also leaves out moments whose records retention may have deleted. */
    RealityWindow from(final long completeFromMs) {
        return new RealityWindow(Math.max(fromMs, completeFromMs), toMs);
    }
}
