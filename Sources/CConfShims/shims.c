int conf_shims_placeholder;
