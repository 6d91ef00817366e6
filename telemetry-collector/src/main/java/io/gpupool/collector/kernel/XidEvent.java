package io.gpupool.collector.kernel;

/**
 * One {@code NVRM: Xid} kernel message.
 *
 * @param pciBusId canonical PCI address of the GPU (see {@link PciBusId})
 * @param xid      the Xid code (79 = fell off the bus, 119 = GSP RPC timeout, ...)
 * @param pid      process id the driver named, null when absent
 * @param process  process name the driver named, null when absent
 * @param message  the rest of the message
 */
public record XidEvent(String pciBusId, int xid, Long pid, String process, String message) {
}
