package io.gpupool.cli;

import picocli.CommandLine;

/** Reports the version from the jar manifest, or "dev" when run from classes. */
final class GpupoolVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = Gpupool.class.getPackage().getImplementationVersion();
        return new String[] {"gpupool " + (version == null ? "dev" : version)};
    }
}
