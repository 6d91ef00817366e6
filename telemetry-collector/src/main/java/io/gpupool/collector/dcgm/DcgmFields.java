package io.gpupool.collector.dcgm;

/** The DCGM fields (dcgm-exporter metric names) the collector maps onto its GPU readings. */
public final class DcgmFields {
    public static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";
    public static final String MEM_COPY_UTIL = "DCGM_FI_DEV_MEM_COPY_UTIL";
    public static final String FB_USED = "DCGM_FI_DEV_FB_USED";
    public static final String FB_FREE = "DCGM_FI_DEV_FB_FREE";
    public static final String FB_TOTAL = "DCGM_FI_DEV_FB_TOTAL";
    public static final String FB_RESERVED = "DCGM_FI_DEV_FB_RESERVED";
    public static final String GPU_TEMP = "DCGM_FI_DEV_GPU_TEMP";
    public static final String POWER_USAGE = "DCGM_FI_DEV_POWER_USAGE";
    public static final String POWER_MGMT_LIMIT = "DCGM_FI_DEV_POWER_MGMT_LIMIT";
    public static final String ENFORCED_POWER_LIMIT = "DCGM_FI_DEV_ENFORCED_POWER_LIMIT";
    public static final String SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK";
    public static final String XID_ERRORS = "DCGM_FI_DEV_XID_ERRORS";
    public static final String ECC_DBE_VOL_TOTAL = "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL";
    public static final String ROW_REMAP_PENDING = "DCGM_FI_DEV_ROW_REMAP_PENDING";
    public static final String ROW_REMAP_FAILURE = "DCGM_FI_DEV_ROW_REMAP_FAILURE";
    public static final String RETIRED_PENDING = "DCGM_FI_DEV_RETIRED_PENDING";

    private DcgmFields() {
    }
}
