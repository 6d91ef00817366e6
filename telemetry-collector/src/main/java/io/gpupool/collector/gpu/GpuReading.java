package io.gpupool.collector.gpu;

import java.util.List;

/**
 * One reading of one GPU, whatever source it came from. Every field a source could not give is
 * null, never 0: a scheduler must tell "idle" from "unknown".
 */
public record GpuReading(
        String uuid,
        Integer index,
        String name,
        String pciBusId,
        Double utilizationGpuPct,
        Double utilizationMemoryPct,
        Long memoryUsedMiB,
        Long memoryTotalMiB,
        Double temperatureC,
        Double powerDrawW,
        Double powerLimitW,
        Integer smClockMHz,
        Long eccUncorrectableVolatile,
        Boolean remappedRowsPending,
        Boolean remappedRowsFailure,
        Boolean retiredPagesPending,
        MigMode migMode,
        List<Integer> xidCodes) {

    public GpuReading {
        if (uuid == null || uuid.isBlank()) {
            throw new IllegalArgumentException("a GPU reading needs a uuid");
        }
        xidCodes = xidCodes == null ? null : List.copyOf(xidCodes);
    }

    public static Builder builder(final String uuid) {
        return new Builder(uuid);
    }

    /** A copy with the Xid codes seen since the previous sample (empty = none seen). */
    public GpuReading withXidCodes(final List<Integer> codes) {
        return toBuilder().xidCodes(codes).build();
    }

    public Builder toBuilder() {
        return new Builder(uuid).index(index).name(name).pciBusId(pciBusId)
                .utilizationGpuPct(utilizationGpuPct).utilizationMemoryPct(utilizationMemoryPct)
                .memoryUsedMiB(memoryUsedMiB).memoryTotalMiB(memoryTotalMiB).temperatureC(temperatureC)
                .powerDrawW(powerDrawW).powerLimitW(powerLimitW).smClockMHz(smClockMHz)
                .eccUncorrectableVolatile(eccUncorrectableVolatile).remappedRowsPending(remappedRowsPending)
                .remappedRowsFailure(remappedRowsFailure).retiredPagesPending(retiredPagesPending)
                .migMode(migMode).xidCodes(xidCodes);
    }

    /** Sources fill readings field by field as they meet them; the builder keeps that readable. */
    public static final class Builder {
        private final String uuid;
        private Integer index;
        private String name;
        private String pciBusId;
        private Double utilizationGpuPct;
        private Double utilizationMemoryPct;
        private Long memoryUsedMiB;
        private Long memoryTotalMiB;
        private Double temperatureC;
        private Double powerDrawW;
        private Double powerLimitW;
        private Integer smClockMHz;
        private Long eccUncorrectableVolatile;
        private Boolean remappedRowsPending;
        private Boolean remappedRowsFailure;
        private Boolean retiredPagesPending;
        private MigMode migMode;
        private List<Integer> xidCodes;

        private Builder(final String uuid) {
            this.uuid = uuid;
        }

        public String uuid() {
            return uuid;
        }

        public Builder index(final Integer v) { index = v; return this; }
        public Builder name(final String v) { name = v; return this; }
        public Builder pciBusId(final String v) { pciBusId = v; return this; }
        public Builder utilizationGpuPct(final Double v) { utilizationGpuPct = v; return this; }
        public Builder utilizationMemoryPct(final Double v) { utilizationMemoryPct = v; return this; }
        public Builder memoryUsedMiB(final Long v) { memoryUsedMiB = v; return this; }
        public Builder memoryTotalMiB(final Long v) { memoryTotalMiB = v; return this; }
        public Builder temperatureC(final Double v) { temperatureC = v; return this; }
        public Builder powerDrawW(final Double v) { powerDrawW = v; return this; }
        public Builder powerLimitW(final Double v) { powerLimitW = v; return this; }
        public Builder smClockMHz(final Integer v) { smClockMHz = v; return this; }
        public Builder eccUncorrectableVolatile(final Long v) { eccUncorrectableVolatile = v; return this; }
        public Builder remappedRowsPending(final Boolean v) { remappedRowsPending = v; return this; }
        public Builder remappedRowsFailure(final Boolean v) { remappedRowsFailure = v; return this; }
        public Builder retiredPagesPending(final Boolean v) { retiredPagesPending = v; return this; }
        public Builder migMode(final MigMode v) { migMode = v; return this; }
        public Builder xidCodes(final List<Integer> v) { xidCodes = v; return this; }

        public GpuReading build() {
            return new GpuReading(uuid, index, name, pciBusId, utilizationGpuPct, utilizationMemoryPct,
                    memoryUsedMiB, memoryTotalMiB, temperatureC, powerDrawW, powerLimitW, smClockMHz,
                    eccUncorrectableVolatile, remappedRowsPending, remappedRowsFailure, retiredPagesPending,
                    migMode, xidCodes);
        }
    }
}
