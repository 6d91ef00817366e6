package io.gpupool.scheduler.core;

/** One GPU as queries see it. {@code health} is empty when healthy, else why not. */
public record GpuView(int index, String uuid, String model, int usedMilli, boolean shared, boolean healthy,
                      String health, int utilisationPct) {
}
