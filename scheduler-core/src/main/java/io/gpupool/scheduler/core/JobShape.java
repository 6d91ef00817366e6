package io.gpupool.scheduler.core;

import java.util.List;

/**
 * The size of an arriving task as the fragmentation model sees it (per node): GPUs, milli-GPU per GPU,
 * CPU, and allowed models ("" = any, else '|'-joined sorted names).
 */
record JobShape(int gpus, int milli, long cpuMilli, String models) implements Comparable<JobShape> {

    static JobShape of(final JobSpec s) {
        return new JobShape(s.gpusPerNode(), s.gpuMilli(), s.cpuMilliPerNode(), String.join("|", s.allowedModels()));
    }

    boolean allows(final String model) {
        if (models.isEmpty()) {
            return true;
        }
        for (final String m : List.of(models.split("\\|"))) {
            if (m.equals(model)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public int compareTo(final JobShape o) {
        int c = Integer.compare(gpus, o.gpus);
        if (c == 0) {
            c = Integer.compare(milli, o.milli);
        }
        if (c == 0) {
            c = Long.compare(cpuMilli, o.cpuMilli);
        }
        return c != 0 ? c : models.compareTo(o.models);
    }
}
