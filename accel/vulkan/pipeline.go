package vulkan

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// PipelineDesc describes a compute pipeline: one shader with storage buffers at bindings 0…Buffers-1 of
// descriptor set 0, push constants, and specialization constants.
type PipelineDesc struct {
	Name     string   // the shader's name, for messages
	SPIRV    []byte   // the module; entry point "main"
	Buffers  int      // storage buffers the shader binds
	PushSize int      // bytes of push constants (a multiple of 4)
	Spec     []uint32 // values of specialization constants 0, 1, …; constant 0 is the workgroup size
}

// Pipeline is a compute pipeline, owned and cached by its Device.
type Pipeline struct {
	name      string
	handle    vk.Pipeline
	layout    vk.PipelineLayout
	setLayout vk.DescriptorSetLayout
	buffers   int
	pushSize  int
	workgroup uint32
}

// Name is the shader's name.
func (p *Pipeline) Name() string { return p.name }

// WorkgroupSize is specialization constant 0 (0 when the description set none).
func (p *Pipeline) WorkgroupSize() uint32 { return p.workgroup }

// pipelineCache owns the device's pipelines, their layouts and the driver's VkPipelineCache. Guarded by Device.mu.
type pipelineCache struct {
	dev        *Device
	cache      vk.PipelineCache
	pipelines  map[string]*Pipeline
	setLayouts map[int]vk.DescriptorSetLayout
	layouts    map[[2]int]vk.PipelineLayout // by (buffers, push size)
}

func newPipelineCache(d *Device) (*pipelineCache, error) {
	c := &pipelineCache{dev: d, pipelines: map[string]*Pipeline{}, setLayouts: map[int]vk.DescriptorSetLayout{},
		layouts: map[[2]int]vk.PipelineLayout{}}
	info := &vk.PipelineCacheCreateInfo{SType: vk.StructureTypePipelineCacheCreateInfo}
	if r := d.cmds.CreatePipelineCache(d.handle, info, nil, &c.cache); r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkCreatePipelineCache: %w", r)
	}
	return c, nil
}

// pipelineKey identifies a pipeline by its shader and specialization.
func pipelineKey(desc PipelineDesc) string {
	h := sha256.New()
	h.Write(desc.SPIRV)
	var b [4]byte
	for _, v := range append([]uint32{uint32(desc.Buffers), uint32(desc.PushSize)}, desc.Spec...) {
		binary.LittleEndian.PutUint32(b[:], v)
		h.Write(b[:])
	}
	return string(h.Sum(nil))
}

// Pipeline returns the compute pipeline for desc, creating it on first use; later calls with the same shader,
// bindings and specialization return the same pipeline.
func (d *Device) Pipeline(desc PipelineDesc) (*Pipeline, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	key := pipelineKey(desc)
	if p := d.pipes.pipelines[key]; p != nil {
		return p, nil
	}
	if err := d.checkDesc(desc); err != nil {
		return nil, err
	}
	p, err := d.pipes.create(desc)
	if err != nil {
		return nil, fmt.Errorf("vulkan: pipeline %s: %w", desc.Name, err)
	}
	d.pipes.pipelines[key] = p
	return p, nil
}

func (d *Device) checkDesc(desc PipelineDesc) error {
	info := d.phys.info
	switch {
	case len(desc.SPIRV) == 0 || len(desc.SPIRV)%4 != 0:
		return fmt.Errorf("vulkan: pipeline %s: SPIR-V of %d bytes", desc.Name, len(desc.SPIRV))
	case desc.Buffers < 0 || uint32(desc.Buffers) > d.phys.props.Limits.MaxPerStageDescriptorStorageBuffers:
		return fmt.Errorf("vulkan: pipeline %s: %d storage buffers (device limit %d)", desc.Name, desc.Buffers,
			d.phys.props.Limits.MaxPerStageDescriptorStorageBuffers)
	case desc.PushSize < 0 || desc.PushSize%4 != 0 || uint32(desc.PushSize) > info.MaxPushConstantsSize:
		return fmt.Errorf("vulkan: pipeline %s: push constants of %d bytes (a multiple of 4 up to %d)", desc.Name,
			desc.PushSize, info.MaxPushConstantsSize)
	case len(desc.Spec) > 0 && (desc.Spec[0] == 0 || desc.Spec[0] > info.MaxWorkgroupInvocations):
		return fmt.Errorf("vulkan: pipeline %s: workgroup size %d (device limit %d)", desc.Name, desc.Spec[0],
			info.MaxWorkgroupInvocations)
	}
	return nil
}

func (c *pipelineCache) create(desc PipelineDesc) (*Pipeline, error) {
	d := c.dev
	setLayout, err := c.setLayout(desc.Buffers)
	if err != nil {
		return nil, err
	}
	layout, err := c.layout(desc.Buffers, desc.PushSize)
	if err != nil {
		return nil, err
	}
	code := make([]uint32, len(desc.SPIRV)/4) // the driver reads words: copy into aligned memory
	for i := range code {
		code[i] = binary.LittleEndian.Uint32(desc.SPIRV[4*i:])
	}
	var module vk.ShaderModule
	minfo := &vk.ShaderModuleCreateInfo{SType: vk.StructureTypeShaderModuleCreateInfo, CodeSize: uintptr(len(desc.SPIRV)), PCode: &code[0]}
	if r := d.cmds.CreateShaderModule(d.handle, minfo, nil, &module); r != vk.Success {
		return nil, fmt.Errorf("vkCreateShaderModule: %w", r)
	}
	defer d.cmds.DestroyShaderModule(d.handle, module, nil) // a pipeline does not need its module once made
	stage := vk.PipelineShaderStageCreateInfo{SType: vk.StructureTypePipelineShaderStageCreateInfo,
		Stage: vk.ShaderStageComputeBit, Module: module, PName: vk.CString("main")}
	if len(desc.Spec) > 0 {
		entries := make([]vk.SpecializationMapEntry, len(desc.Spec))
		data := make([]uint32, len(desc.Spec))
		for i, v := range desc.Spec {
			entries[i] = vk.SpecializationMapEntry{ConstantID: uint32(i), Offset: uint32(4 * i), Size: 4}
			data[i] = v
		}
		stage.PSpecializationInfo = &vk.SpecializationInfo{MapEntryCount: uint32(len(entries)), PMapEntries: &entries[0],
			DataSize: uintptr(4 * len(data)), PData: unsafe.Pointer(&data[0])}
	}
	info := &vk.ComputePipelineCreateInfo{SType: vk.StructureTypeComputePipelineCreateInfo, Stage: stage, Layout: layout}
	p := &Pipeline{name: desc.Name, layout: layout, setLayout: setLayout, buffers: desc.Buffers, pushSize: desc.PushSize}
	if len(desc.Spec) > 0 {
		p.workgroup = desc.Spec[0]
	}
	if r := d.cmds.CreateComputePipelines(d.handle, c.cache, 1, info, nil, &p.handle); r != vk.Success {
		return nil, fmt.Errorf("vkCreateComputePipelines: %w", r)
	}
	d.setName(vk.ObjectTypePipeline, uint64(p.handle), desc.Name)
	return p, nil
}

// setLayout returns the descriptor set layout of n storage buffers at bindings 0…n-1.
func (c *pipelineCache) setLayout(n int) (vk.DescriptorSetLayout, error) {
	if l, ok := c.setLayouts[n]; ok {
		return l, nil
	}
	d := c.dev
	info := &vk.DescriptorSetLayoutCreateInfo{SType: vk.StructureTypeDescriptorSetLayoutCreateInfo, BindingCount: uint32(n)}
	if n > 0 {
		bindings := make([]vk.DescriptorSetLayoutBinding, n)
		for i := range bindings {
			bindings[i] = vk.DescriptorSetLayoutBinding{Binding: uint32(i), DescriptorType: vk.DescriptorTypeStorageBuffer,
				DescriptorCount: 1, StageFlags: vk.ShaderStageComputeBit}
		}
		info.PBindings = &bindings[0]
	}
	var l vk.DescriptorSetLayout
	if r := d.cmds.CreateDescriptorSetLayout(d.handle, info, nil, &l); r != vk.Success {
		return 0, fmt.Errorf("vkCreateDescriptorSetLayout: %w", r)
	}
	c.setLayouts[n] = l
	return l, nil
}

// layout returns the pipeline layout for n storage buffers and push constants of push bytes.
func (c *pipelineCache) layout(n, push int) (vk.PipelineLayout, error) {
	key := [2]int{n, push}
	if l, ok := c.layouts[key]; ok {
		return l, nil
	}
	d := c.dev
	setLayout := c.setLayouts[n]
	info := &vk.PipelineLayoutCreateInfo{SType: vk.StructureTypePipelineLayoutCreateInfo, SetLayoutCount: 1, PSetLayouts: &setLayout}
	if push > 0 {
		info.PushConstantRangeCount = 1
		info.PPushConstantRanges = &vk.PushConstantRange{StageFlags: vk.ShaderStageComputeBit, Size: uint32(push)}
	}
	var l vk.PipelineLayout
	if r := d.cmds.CreatePipelineLayout(d.handle, info, nil, &l); r != vk.Success {
		return 0, fmt.Errorf("vkCreatePipelineLayout: %w", r)
	}
	c.layouts[key] = l
	return l, nil
}

func (c *pipelineCache) destroy() {
	if c == nil {
		return
	}
	d := c.dev
	for _, p := range c.pipelines {
		d.cmds.DestroyPipeline(d.handle, p.handle, nil)
	}
	for _, l := range c.layouts {
		d.cmds.DestroyPipelineLayout(d.handle, l, nil)
	}
	for _, l := range c.setLayouts {
		d.cmds.DestroyDescriptorSetLayout(d.handle, l, nil)
	}
	if c.cache != 0 {
		d.cmds.DestroyPipelineCache(d.handle, c.cache, nil)
	}
	c.pipelines, c.layouts, c.setLayouts = nil, nil, nil
}
