package io.gpupool.collector.kernel;

import java.io.Closeable;
import java.util.List;

/** Hands out the kernel-log lines that arrived since the last call, without blocking. */
public interface LineSource extends Closeable {
    List<String> poll();

    @Override
    void close();
}
