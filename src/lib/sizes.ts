/** A byte count as Rails' number_to_human_size shows megabytes in validation messages: "16 MB". */
export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
