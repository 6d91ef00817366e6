package io.gpupool.collector.sim;

/** A GPU model of the synthetic fleet, with the figures its readings are drawn around. */
public enum GpuModel {
    H100("NVIDIA H100 80GB HBM3", 81559, 700.0, 69.0, 1980),
    A100("NVIDIA A100-SXM4-80GB", 81920, 400.0, 55.0, 1410);

    private final String productName;
    private final long memoryMiB;
    private final double powerLimitW;
    private final double idlePowerW;
    private final int maxSmClockMHz;

    GpuModel(final String productName, final long memoryMiB, final double powerLimitW, final double idlePowerW,
            final int maxSmClockMHz) {
        this.productName = productName;
        this.memoryMiB = memoryMiB;
        this.powerLimitW = powerLimitW;
        this.idlePowerW = idlePowerW;
        this.maxSmClockMHz = maxSmClockMHz;
    }

    public String productName() {
        return productName;
    }

    public long memoryMiB() {
        return memoryMiB;
    }

    public double powerLimitW() {
        return powerLimitW;
    }

    public double idlePowerW() {
        return idlePowerW;
    }

    public int maxSmClockMHz() {
        return maxSmClockMHz;
    }
}
