package main

// The subset of Vulkan forma binds: every command listed here, every type those commands reach through their
// parameters and struct members, and the extra structs below (pNext extensions the commands do not name).

// commands lists the bound commands. vkGetInstanceProcAddr is loaded from the library by hand and is not listed.
var commands = []string{
	// Global commands (loaded with a null instance).
	"vkCreateInstance",
	"vkEnumerateInstanceVersion",
	"vkEnumerateInstanceLayerProperties",
	"vkEnumerateInstanceExtensionProperties",

	// Instance and physical device.
	"vkDestroyInstance",
	"vkEnumeratePhysicalDevices",
	"vkGetPhysicalDeviceProperties",
	"vkGetPhysicalDeviceProperties2",
	"vkGetPhysicalDeviceFeatures",
	"vkGetPhysicalDeviceFeatures2",
	"vkGetPhysicalDeviceMemoryProperties",
	"vkGetPhysicalDeviceMemoryProperties2",
	"vkGetPhysicalDeviceQueueFamilyProperties",
	"vkEnumerateDeviceExtensionProperties",
	"vkCreateDevice",
	"vkGetDeviceProcAddr",
	"vkCreateDebugUtilsMessengerEXT",
	"vkDestroyDebugUtilsMessengerEXT",

	// Device and queue.
	"vkDestroyDevice",
	"vkGetDeviceQueue",
	"vkDeviceWaitIdle",
	"vkQueueSubmit",
	"vkQueueWaitIdle",
	"vkSetDebugUtilsObjectNameEXT",

	// Memory and buffers.
	"vkCreateBuffer",
	"vkDestroyBuffer",
	"vkGetBufferMemoryRequirements",
	"vkAllocateMemory",
	"vkFreeMemory",
	"vkBindBufferMemory",
	"vkMapMemory",
	"vkUnmapMemory",
	"vkFlushMappedMemoryRanges",
	"vkInvalidateMappedMemoryRanges",

	// Descriptors.
	"vkCreateDescriptorSetLayout",
	"vkDestroyDescriptorSetLayout",
	"vkCreateDescriptorPool",
	"vkDestroyDescriptorPool",
	"vkResetDescriptorPool",
	"vkAllocateDescriptorSets",
	"vkFreeDescriptorSets",
	"vkUpdateDescriptorSets",

	// Pipelines.
	"vkCreatePipelineLayout",
	"vkDestroyPipelineLayout",
	"vkCreateShaderModule",
	"vkDestroyShaderModule",
	"vkCreateComputePipelines",
	"vkDestroyPipeline",
	"vkCreatePipelineCache",
	"vkDestroyPipelineCache",
	"vkGetPipelineCacheData",

	// Command buffers.
	"vkCreateCommandPool",
	"vkDestroyCommandPool",
	"vkResetCommandPool",
	"vkAllocateCommandBuffers",
	"vkFreeCommandBuffers",
	"vkBeginCommandBuffer",
	"vkEndCommandBuffer",
	"vkResetCommandBuffer",
	"vkCmdBindPipeline",
	"vkCmdBindDescriptorSets",
	"vkCmdPushConstants",
	"vkCmdDispatch",
	"vkCmdDispatchIndirect",
	"vkCmdPipelineBarrier",
	"vkCmdCopyBuffer",
	"vkCmdFillBuffer",
	"vkCmdUpdateBuffer",
	"vkCmdResetQueryPool",
	"vkCmdWriteTimestamp",

	// Synchronisation and queries.
	"vkCreateFence",
	"vkDestroyFence",
	"vkResetFences",
	"vkWaitForFences",
	"vkGetFenceStatus",
	"vkCreateQueryPool",
	"vkDestroyQueryPool",
	"vkGetQueryPoolResults",
	"vkResetQueryPool",
}

// extraTypes are structs reached only through pNext chains.
var extraTypes = []string{
	"VkPhysicalDeviceVulkan11Features",
	"VkPhysicalDeviceVulkan12Features",
	"VkPhysicalDeviceVulkan13Features",
	"VkPhysicalDevice16BitStorageFeatures",
	"VkPhysicalDevice8BitStorageFeatures",
	"VkPhysicalDeviceShaderFloat16Int8Features",
	"VkPhysicalDeviceSubgroupSizeControlFeatures",
	"VkPhysicalDeviceShaderIntegerDotProductFeatures",
	"VkPhysicalDeviceVulkan11Properties",
	"VkPhysicalDeviceVulkan12Properties",
	"VkPhysicalDeviceVulkan13Properties",
	"VkPhysicalDeviceSubgroupProperties",
	"VkPhysicalDeviceSubgroupSizeControlProperties",
	"VkPhysicalDeviceDriverProperties",
	"VkPhysicalDeviceMaintenance4Properties",
	"VkPipelineShaderStageRequiredSubgroupSizeCreateInfo",
	"VkDebugUtilsMessengerCallbackDataEXT",
	"VkValidationFeaturesEXT",
	"VkMemoryBarrier",
}

// stringers are the enums that get a String method.
var stringers = []string{
	"VkResult",
	"VkPhysicalDeviceType",
	"VkObjectType",
	"VkDriverId",
}
