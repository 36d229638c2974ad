"""Extensions (seed 002): resource providers (`engine.plugin.resource`) and engine plugins
(`engine.plugin.registry`)."""
from .resource import (MjResource, ResourceError, register_resource_provider,  # noqa: F401
                       unregister_resource_provider, resource_provider_count)
from .registry import (Plugin, mjp_registerPlugin, mjp_pluginCount,  # noqa: F401
                       mj_loadPluginLibrary, mj_loadAllPluginLibraries)
