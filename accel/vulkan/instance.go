package vulkan

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// Errors that say Vulkan cannot be used here; callers fall back to the CPU and print the error.
var (
	// ErrNoLoader: the Vulkan loader library is not installed (wraps the reason).
	ErrNoLoader = vk.ErrNoLoader
	// ErrNoDevice: the loader found no usable device.
	ErrNoDevice = errors.New("vulkan: no usable Vulkan device")
	// ErrNoValidationLayer: Options.Validation was set but VK_LAYER_KHRONOS_validation is not installed.
	ErrNoValidationLayer = errors.New("vulkan: validation layer " + validationLayer + " is not installed")
)

const (
	validationLayer       = "VK_LAYER_KHRONOS_validation"
	extDebugUtils         = "VK_EXT_debug_utils"
	extValidationFeatures = "VK_EXT_validation_features"
	extPortabilityEnum    = "VK_KHR_portability_enumeration"
	extPortabilitySubset  = "VK_KHR_portability_subset"
	messageSeverityRecord = vk.DebugUtilsMessageSeverityWarningBitEXT | vk.DebugUtilsMessageSeverityErrorBitEXT
	messageTypesRecorded  = vk.DebugUtilsMessageTypeGeneralBitEXT | vk.DebugUtilsMessageTypeValidationBitEXT | vk.DebugUtilsMessageTypePerformanceBitEXT
)

// instance is a VkInstance with its command table and, when asked for, a debug messenger.
type instance struct {
	lib       *vk.Library
	handle    vk.Instance
	cmds      *vk.InstanceCommands
	debug     bool // VK_EXT_debug_utils is enabled
	messenger vk.DebugUtilsMessengerEXT
	release   func() // unregisters the debug handler
}

type instanceOptions struct {
	validation bool
	onMessage  func(vk.DebugMessage) // nil: no messenger
}

func newInstance(opt instanceOptions) (*instance, error) {
	lib, err := vk.Load()
	if err != nil {
		return nil, err
	}
	version := vk.MakeAPIVersion(0, 1, 0, 0)
	if !slices.Contains(lib.Missing(), "vkEnumerateInstanceVersion") { // absent from Vulkan 1.0 loaders
		if r := lib.EnumerateInstanceVersion(&version); r.Err() != nil {
			return nil, fmt.Errorf("vulkan: vkEnumerateInstanceVersion: %w", r)
		}
	}
	if version < vk.APIVersion1_1 {
		return nil, fmt.Errorf("%w: the Vulkan loader supports only %s; forma needs 1.1", ErrNoDevice, versionString(version))
	}
	var layers, exts []string
	available, err := instanceExtensions(lib, "")
	if err != nil {
		return nil, err
	}
	if opt.validation {
		if ok, err := hasLayer(lib, validationLayer); err != nil {
			return nil, err
		} else if !ok {
			return nil, ErrNoValidationLayer
		}
		layers = append(layers, validationLayer)
		layerExts, err := instanceExtensions(lib, validationLayer)
		if err != nil {
			return nil, err
		}
		available = append(available, layerExts...)
	}
	debug := opt.onMessage != nil && slices.Contains(available, extDebugUtils)
	if debug {
		exts = append(exts, extDebugUtils)
	}
	info := &vk.InstanceCreateInfo{
		SType: vk.StructureTypeInstanceCreateInfo,
		PApplicationInfo: &vk.ApplicationInfo{
			SType:            vk.StructureTypeApplicationInfo,
			PApplicationName: vk.CString("forma"),
			PEngineName:      vk.CString("forma"),
			ApiVersion:       min(version, vk.APIVersion1_3), // the newest version forma uses
		},
	}
	if slices.Contains(available, extPortabilityEnum) { // lists MoltenVK and other non-conformant drivers
		exts = append(exts, extPortabilityEnum)
		info.Flags |= vk.InstanceCreateEnumeratePortabilityBitKHR
	}
	inst := &instance{lib: lib, debug: debug}
	var chain unsafe.Pointer
	var dinfo *vk.DebugUtilsMessengerCreateInfoEXT
	if debug {
		dinfo, inst.release = vk.RegisterDebugHandler(opt.onMessage)
		dinfo.MessageSeverity = messageSeverityRecord
		dinfo.MessageType = messageTypesRecorded
		chain = unsafe.Pointer(dinfo) // also reports problems inside vkCreateInstance and vkDestroyInstance
	}
	if opt.validation && slices.Contains(available, extValidationFeatures) {
		exts = append(exts, extValidationFeatures)
		enables := []vk.ValidationFeatureEnableEXT{vk.ValidationFeatureEnableSynchronizationValidationEXT}
		chain = unsafe.Pointer(&vk.ValidationFeaturesEXT{
			SType:                         vk.StructureTypeValidationFeaturesEXT,
			PNext:                         chain,
			EnabledValidationFeatureCount: uint32(len(enables)),
			PEnabledValidationFeatures:    &enables[0],
		})
	}
	info.PNext = chain
	info.EnabledLayerCount, info.PpEnabledLayerNames = uint32(len(layers)), vk.CStrings(layers)
	info.EnabledExtensionCount, info.PpEnabledExtensionNames = uint32(len(exts)), vk.CStrings(exts)
	if r := lib.CreateInstance(info, nil, &inst.handle); r != vk.Success {
		if inst.release != nil {
			inst.release()
		}
		if r == vk.ErrorIncompatibleDriver {
			return nil, fmt.Errorf("%w: vkCreateInstance: %v", ErrNoDevice, r)
		}
		return nil, fmt.Errorf("vulkan: vkCreateInstance: %w", r)
	}
	inst.cmds = lib.LoadInstance(inst.handle)
	if m := inst.cmds.Missing(); len(m) > 0 && !onlyDebugUtils(m) {
		inst.close()
		return nil, fmt.Errorf("vulkan: the loader lacks %v", m)
	}
	if debug {
		if r := inst.cmds.CreateDebugUtilsMessengerEXT(inst.handle, dinfo, nil, &inst.messenger); r != vk.Success {
			inst.close()
			return nil, fmt.Errorf("vulkan: vkCreateDebugUtilsMessengerEXT: %w", r)
		}
	}
	return inst, nil
}

func onlyDebugUtils(missing []string) bool {
	for _, m := range missing {
		if m != "vkCreateDebugUtilsMessengerEXT" && m != "vkDestroyDebugUtilsMessengerEXT" {
			return false
		}
	}
	return true
}

func (in *instance) close() {
	if in.messenger != 0 {
		in.cmds.DestroyDebugUtilsMessengerEXT(in.handle, in.messenger, nil)
		in.messenger = 0
	}
	if in.handle != 0 {
		in.cmds.DestroyInstance(in.handle, nil)
		in.handle = 0
	}
	if in.release != nil {
		in.release()
		in.release = nil
	}
}

func (in *instance) physicalDevices() ([]vk.PhysicalDevice, error) {
	return enumerate(func(n *uint32, p *vk.PhysicalDevice) vk.Result {
		return in.cmds.EnumeratePhysicalDevices(in.handle, n, p)
	}, "vkEnumeratePhysicalDevices")
}

// enumerate runs Vulkan's two-call enumeration idiom, retrying while the count grows (VK_INCOMPLETE).
func enumerate[T any](call func(*uint32, *T) vk.Result, what string) ([]T, error) {
	for {
		var n uint32
		if r := call(&n, nil); r.Err() != nil {
			return nil, fmt.Errorf("vulkan: %s: %w", what, r)
		}
		if n == 0 {
			return nil, nil
		}
		out := make([]T, n)
		r := call(&n, &out[0])
		if r == vk.Incomplete {
			continue
		}
		if r.Err() != nil {
			return nil, fmt.Errorf("vulkan: %s: %w", what, r)
		}
		return out[:n], nil
	}
}

func instanceExtensions(lib *vk.Library, layer string) ([]string, error) {
	var name *byte
	if layer != "" {
		name = vk.CString(layer)
	}
	props, err := enumerate(func(n *uint32, p *vk.ExtensionProperties) vk.Result {
		return lib.EnumerateInstanceExtensionProperties(name, n, p)
	}, "vkEnumerateInstanceExtensionProperties")
	return extensionNames(props), err
}

func extensionNames(props []vk.ExtensionProperties) []string {
	names := make([]string, len(props))
	for i := range props {
		names[i] = vk.GoString(props[i].ExtensionName[:])
	}
	return names
}

func hasLayer(lib *vk.Library, want string) (bool, error) {
	props, err := enumerate(lib.EnumerateInstanceLayerProperties, "vkEnumerateInstanceLayerProperties")
	if err != nil {
		return false, err
	}
	for i := range props {
		if vk.GoString(props[i].LayerName[:]) == want {
			return true, nil
		}
	}
	return false, nil
}

func versionString(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", vk.APIVersionMajor(v), vk.APIVersionMinor(v), vk.APIVersionPatch(v))
}

// messageLog records debug messages; the callback may run on any thread.
type messageLog struct {
	mu   sync.Mutex
	msgs []Message
	also func(Message)
}

func (l *messageLog) handle(m vk.DebugMessage) {
	msg := Message{Severity: severityOf(m.Severity), ID: m.IDName, Text: m.Text}
	l.mu.Lock()
	l.msgs = append(l.msgs, msg)
	l.mu.Unlock()
	if l.also != nil {
		l.also(msg)
	}
}

func (l *messageLog) all() []Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}
